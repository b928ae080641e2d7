"""IMPARA-GED Space. Generated from `gecscore.impara_ged.SPEC` by `make generate`: edit the SPEC, not this file."""
from gecscore.spaces import generic

PAGE, build_demo, serve = generic.app("impara_ged", __file__)
if __name__ == "__main__":
    serve()
