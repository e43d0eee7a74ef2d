"""What every part of training/ shares: command-line flags from config dataclasses
(``flags``), single-threaded worker pools (``processes``), progress lines (``progress``).

Imports nothing from the rest of ``training``.
"""
