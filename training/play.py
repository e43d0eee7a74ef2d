"""``python -m training.play``: play in the terminal (the code lives in ``training.serving.terminal``)."""

import sys

from training.serving.terminal import main

if __name__ == "__main__":
    sys.exit(main())
