"""``python -m training.export_onnx``: export an agent file to ONNX (the code lives in ``training.agents.export_onnx``)."""

from training.agents.export_onnx import main

if __name__ == "__main__":
    main()
