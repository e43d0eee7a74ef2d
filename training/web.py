"""``python -m training.web``: play in the browser (the code lives in ``training.serving.web``)."""

from training.serving.web.app import main

if __name__ == "__main__":
    main()
