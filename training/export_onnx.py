"""``python -m training.export_onnx``: the same as ``abstract-games export-onnx`` (``training.cli``)."""

from training.cli import run

if __name__ == "__main__":
    run("export-onnx")
