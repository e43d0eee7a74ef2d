"""``python -m training.serve``: the JSON-lines bot server on stdin/stdout (the code lives in ``training.serving.stdio``)."""

from training.serving.stdio import main

if __name__ == "__main__":
    main()
