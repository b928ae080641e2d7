"""Scribendi Space. Generated from `gecscore.scribendi.SPEC` by `make generate`: edit the SPEC, not this file."""
from gecscore.spaces import generic

PAGE, build_demo, serve = generic.app("scribendi", __file__)
if __name__ == "__main__":
    serve()
