"""Building blocks of the gecscore Gradio Spaces (one app per metric under `spaces/<name>/app.py`).

`loading` finds and loads the metric module, `inputs` reads what the user typed or uploaded, `messages` turns
errors into a `gr.Error` (a message in the page, an exception for `gradio_client`), `results` builds the per-sentence table and the JSON download, `layout` lays out
the common page (sentence and corpus tabs), and the `*_view` modules draw each metric's explanation.
"""
