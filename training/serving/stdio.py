"""A bot server speaking JSON lines over stdin/stdout, for other programs' game front ends.

    python -m training.serve [--max-line-bytes N] [--max-simulations N] [--move-time-limit S] [--agents-dir DIR]
                             [--max-games N]

One request per line in, one answer per line out (flushed at once), like UCI or GTP for chess
and Go engines. A front end starts a game (env name, options, an agent spec that
``training.load_agent`` accepts, a seed), then asks for moves, legal actions or why a move is
illegal, giving each time the whole position: a snapshot from the bot's seat (the opponents'
hidden items may be left out; the game's ``complete_snapshot`` draws them) or the
list of actions since the start (replayed on an env reset with the game's seed, so the dice,
the pile and the deal come out the same). The protocol, with an example of every request and
every error, is ``docs/protocol.md``.

Every bad request gets an answer ``{"id": ..., "ok": false, "error": {"code", "message"}}``
and the server reads on. Nothing from a request is evaluated or unpickled: requests are parsed
with ``json``, options are checked by the games, and an agent file must be a suite checkpoint
(``.zip``, numpy arrays read with ``allow_pickle=False``) or an exported ``.onnx`` policy.
"""

from __future__ import annotations

import argparse
import math
import sys
import traceback
from pathlib import Path
from typing import Any, BinaryIO

from training.serving.bot_server import BotServer
from training.serving.protocol import (
    DEFAULT_MAX_GAMES, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_SIMULATIONS, DEFAULT_MOVE_TIME_LIMIT_S, cut, encode, error_answer,
)


def discard_rest_of_line(stream: BinaryIO) -> None:
    while True:
        chunk = stream.readline(1 << 16)
        if not chunk or chunk.endswith(b"\n"):
            return


def serve(stdin: BinaryIO, stdout: BinaryIO, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, **limits: Any) -> None:
    """Answer request lines until ``quit`` or the end of the input (``limits``: BotServer's)."""
    server = BotServer(max_line_bytes, **limits)
    while not server.quitting:
        # bounded read: a line longer than the limit is never held in memory whole
        line = stdin.readline(max_line_bytes + 1)
        if not line:
            return
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            discard_rest_of_line(stdin)
            answer = error_answer(
                None, "line_too_long",
                f"the request line is longer than {max_line_bytes} bytes (--max-line-bytes); it was discarded",
            )
        elif not line.strip():
            continue  # blank lines are ignored, as GTP does
        else:
            try:
                answer = server.answer_line(line)
            except Exception as error:  # answer_line catches everything; this is the last guard
                traceback.print_exc(file=sys.stderr)
                answer = error_answer(None, "internal", f"the server failed on this request: {cut(repr(error), 300)}")
        stdout.write(encode(answer))
        stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="A bot server: JSON lines over stdin/stdout (docs/protocol.md).",
    )
    parser.add_argument(
        "--max-line-bytes", type=int, default=DEFAULT_MAX_LINE_BYTES,
        help=f"longest request line accepted, newline excluded (default {DEFAULT_MAX_LINE_BYTES})",
    )
    parser.add_argument(
        "--max-simulations", type=int, default=DEFAULT_MAX_SIMULATIONS,
        help=f"most simulations a move an mcts:N agent may ask for (default {DEFAULT_MAX_SIMULATIONS})",
    )
    parser.add_argument(
        "--move-time-limit", type=float, default=DEFAULT_MOVE_TIME_LIMIT_S,
        help=f"seconds an agent may take for one move or one probabilities answer; 0 for none (default {DEFAULT_MOVE_TIME_LIMIT_S:g})",
    )
    parser.add_argument(
        "--agents-dir", default=".",
        help="the folder agent files are loaded from, by relative paths (default: the working folder)",
    )
    parser.add_argument(
        "--max-games", type=int, default=DEFAULT_MAX_GAMES,
        help=f"most games the server holds at once for web_* requests (default {DEFAULT_MAX_GAMES})",
    )
    args = parser.parse_args(argv)
    if args.max_line_bytes < 1:
        parser.error(f"--max-line-bytes must be at least 1, not {args.max_line_bytes}")
    if args.max_simulations < 1:
        parser.error(f"--max-simulations must be at least 1, not {args.max_simulations}")
    if not (math.isfinite(args.move_time_limit) and args.move_time_limit >= 0):
        parser.error(f"--move-time-limit must be a number of seconds >= 0, not {args.move_time_limit}")
    if args.max_games < 0:
        parser.error(f"--max-games must be at least 0, not {args.max_games}")
    if not Path(args.agents_dir).is_dir():
        parser.error(f"--agents-dir {args.agents_dir!r} is not a folder")
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a bot that prints cannot corrupt the protocol stream
    serve(
        sys.stdin.buffer, protocol_out, args.max_line_bytes, max_simulations=args.max_simulations,
        move_time_limit=args.move_time_limit, agents_dir=args.agents_dir, max_games=args.max_games,
    )


if __name__ == "__main__":
    main()
