"""Progress of a long phase, shown while it runs (games played, updates made)."""

from __future__ import annotations

import sys
import time


class Progress:
    """A tqdm bar on ``file`` (stdout unless given), or a plain line at every quarter of the way:
    with ``bar=False`` (for logs) or where tqdm, which comes with the train extra, is not
    installed. ``update(n, note)`` advances it; ``note`` (the running score, say) is shown beside
    the count."""

    def __init__(self, total: int, desc: str, bar: bool = True, unit: str = "it", file=None,
                 mininterval: float = 1.0):
        self.total, self.desc, self.done, self.unit = total, desc, 0, unit
        self.file = sys.stdout if file is None else file
        self.started = time.perf_counter()
        self.bar = None
        if bar:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, desc=desc, unit=unit, file=self.file, dynamic_ncols=True,
                                mininterval=mininterval)
        self.next_line = max(1, total // 4)

    def update(self, n: int = 1, note: str | None = None) -> None:
        self.done += n
        if self.bar is not None:
            if note:
                self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(n)
        elif self.done >= self.next_line or self.done == self.total:
            print(f"    {self.desc}: {self.done:,}/{self.total:,} {self.unit} ({time.perf_counter() - self.started:.0f} s)"
                  + (f"; {note}" if note else ""), file=self.file, flush=True)
            self.next_line += max(1, self.total // 4)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
