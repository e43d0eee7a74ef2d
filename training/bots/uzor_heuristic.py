"""Uzor's heuristic bot: it prices every placement it considers by what it closes now (its
secret goal doubled), what it prepares for its own next turn, and what it hands the opponent
(whose hand is public); weighs CLOSE now against CONTINUE for a bigger pattern in the repeated
turn; takes the market tile that serves it best or denies the opponent a pattern; discards its
least useful tile in a dead end. The search hooks (``training.bots.uzor_search``) price root
placements the same way."""

from __future__ import annotations

import numpy as np

from envs.uzor.common import DEAD_TAKE, DISCARD, FORK, PLACE, TAKE
from envs.uzor.rules import UzorGame, bits_of
from training.agents.base import legal_from_mask
from training.bots.uzor_simple import SeatBot


class HeuristicUzorBot(SeatBot):
    """See the module docstring. Weights were tuned by play against random and ``closer``."""

    name = "heuristic"
    PREPARE = 0.45  # what my own next turn could close, after the opponent has moved
    THREAT = 0.9  # what the opponent could close next turn
    DENY = 0.3  # what a market tile would let the opponent close later
    TOP = 12  # placements examined in depth

    # ----- scans ----------------------------------------------------------------------------
    def best_close(self, game: UzorGame, types, player: int, region: int = -1) -> float:
        """The most valuable pattern ``player`` could complete with one of ``types``."""
        acc = game.acceptance()
        best = 0.0
        seen = set()
        for t in types:
            if t in seen:
                continue
            seen.add(t)
            for cell in bits_of(acc[t] & region):
                for k in game.completions(cell, t):
                    v = self.value(k, game, player)
                    if v > best:
                        best = v
        return best

    def threats(self, game: UzorGame, types, player: int) -> list[tuple[float, int, int]]:
        """Every (value, pattern, cell) ``player`` could complete now with one of ``types``."""
        acc = game.acceptance()
        out = []
        for t in set(types):
            for cell in bits_of(acc[t]):
                for k in game.completions(cell, t):
                    out.append((self.value(k, game, player), k, cell))
        return out

    def opponent_threat(self, sim: UzorGame, baseline, changed: int, opp: int) -> float:
        """The opponent's best close after my move: the baseline's threats that survive (their
        pattern not crossed out, their cell far from what changed), and a fresh scan nearby."""
        region = 0
        for x in bits_of(changed):
            region |= self.near[x]
        best = 0.0
        crossed = sim.crossed
        for v, k, cell in baseline:
            if v > best and not crossed >> k & 1 and not region >> cell & 1:
                best = v
        local = self.best_close(sim, sim.hands[opp], opp, region)
        return max(best, local)

    # ----- decisions ---------------------------------------------------------------------------
    def act(self, observation) -> int:
        legal = legal_from_mask(observation)
        if len(legal) == 1:
            return legal[0]
        game = self.position(observation)
        phase = game.phase
        if phase == PLACE:
            return self.place(game, legal)
        if phase == FORK:
            return self.fork(game, legal)
        if phase in (TAKE, DEAD_TAKE):
            return self.take(game, legal)
        if phase == DISCARD:
            return self.discard(game, legal)
        return legal[0]  # PASS

    def _close_value(self, game: UzorGame) -> tuple[float, int]:
        """The best pattern in the fork and its value."""
        best_k, best_v = -1, -1.0
        for k in game.fork:
            v = self.value(k, game, self.me)
            if v > best_v:
                best_k, best_v = k, v
        return best_v, best_k

    def price(self, game: UzorGame, action: int, now: float | None, baseline, close: bool = True) -> float | None:
        """A placement's price: ``now`` (what it closes; None: the worth of its best close) plus
        what it prepares for my next turn, less what it leaves the opponent (``baseline``: the
        opponent's ``threats`` before it). Where it completes a pattern the best one is closed
        first; with ``close=False`` such a placement is not priced (None)."""
        geo, me, opp = game.geo, self.me, 1 - self.me
        sim = game.clone()
        sim.apply(action)
        cell = action % geo.cells
        changed = 1 << cell
        if sim.phase == FORK:
            if not close:
                return None
            v, k = self._close_value(sim)
            changed |= sum(1 << x for x in sim.fork[k])
            sim.apply(geo.close0 + k)
            now = v if now is None else now
        prepare = self.best_close(sim, sim.hands[me], me, self.near[cell])
        threat = self.opponent_threat(sim, baseline, changed, opp)
        return (now or 0.0) + self.PREPARE * prepare - self.THREAT * threat

    def closes_now(self, game: UzorGame, action: int) -> float:
        """What placement ``action`` closes at once: the worth of its best completed pattern."""
        slot, cell = divmod(action, game.geo.cells)
        done = game.completions(cell, game.hands[self.me][slot])
        return max((self.value(k, game, self.me) for k in done), default=0.0)

    def place(self, game: UzorGame, legal: list[int]) -> int:
        opp = 1 - self.me
        baseline = self.threats(game, game.hands[opp], opp)
        quick = []
        for a in legal:
            quick.append((self.closes_now(game, a) + self.rng.random() * 1e-3, a))
        quick.sort(reverse=True)
        scored = [(self.price(game, a, now, baseline), a) for now, a in quick[: self.TOP]]
        # placements with nothing to close: judged by preparation and threat only, sampled
        rest = quick[self.TOP:]
        if rest:
            for now, a in self.rng.sample(rest, min(len(rest), self.TOP)):
                value = self.price(game, a, now, baseline, close=False)
                if value is not None:
                    scored.append((value, a))
        best = max(v for v, _ in scored)
        return self.rng.choice([a for v, a in scored if v >= best - 1e-9])

    def fork(self, game: UzorGame, legal: list[int]) -> int:
        return max(self.fork_options(game))[1]

    def fork_options(self, game: UzorGame) -> list[tuple[float, int]]:
        """(worth, action) of every choice at the fork: each completed pattern closed now, less
        what the opponent could then close; CONTINUE for a bigger close in the repeated turn."""
        geo = game.geo
        me, opp = self.me, 1 - self.me
        baseline = self.threats(game, game.hands[opp], opp)
        options = []
        for k in game.fork:
            sim = game.clone()
            sim.apply(geo.close0 + k)
            changed = sum(1 << x for x in game.fork[k]) | (1 << game.last_cell)
            threat = self.opponent_threat(sim, baseline, changed, opp)
            options.append((self.value(k, game, me) - self.THREAT * threat, geo.close0 + k))
        if not game.repeated:
            # CONTINUE: take the best market tile, then close the best pattern in the repeated turn.
            best = 0.0
            for m, t in enumerate(game.market):
                if t < 0:
                    continue
                hand = game.hands[me] + [t]
                best = max(best, self.best_close(game, hand, me))
            if not any(t >= 0 for t in game.market):
                best = self.best_close(game, game.hands[me], me)
            # the repeated turn is mine, but the tiles stay open for the opponent afterwards
            options.append((0.95 * best - self.THREAT * 0.5 * max((v for v, _, _ in baseline), default=0.0),
                            geo.cont))
        else:
            threat = max((v for v, _, _ in baseline), default=0.0)
            threat = max(threat, self.best_close(game, game.hands[opp], opp))
            options.append((-self.THREAT * threat, geo.cont))
        return options

    def take_scores(self, game: UzorGame, legal: list[int]) -> list[float]:
        """Each market tile's worth: what it lets me close (fully if the repeated turn follows),
        what it would let the opponent close, and a little for how many cells accept it."""
        me, opp = self.me, 1 - self.me
        again = game.phase == TAKE and game.continued and not game.repeated
        weight = 1.0 if again else self.PREPARE
        scores = []
        for a in legal:
            t = game.market[a - game.geo.take0]
            mine = self.best_close(game, game.hands[me] + [t], me)
            theirs = self.best_close(game, [t], opp)
            fits = bin(game.acceptance()[t]).count("1")
            scores.append(weight * mine + self.DENY * theirs + 0.01 * fits)
        return scores

    def take(self, game: UzorGame, legal: list[int]) -> int:
        scores = self.take_scores(game, legal)
        return max((v + self.rng.random() * 1e-4, a) for v, a in zip(scores, legal))[1]

    def discard_scores(self, game: UzorGame, legal: list[int]) -> list[int]:
        """How many tiles in my hand (itself included) share each tile's colour or shape."""
        hand = game.hands[self.me]
        scores = []
        for a in legal:
            t = hand[a - game.geo.discard0]
            scores.append(sum(1 for x in hand if x // 5 == t // 5 or x % 5 == t % 5))
        return scores

    def discard(self, game: UzorGame, legal: list[int]) -> int:
        scores = self.discard_scores(game, legal)
        return min((v + self.rng.random() * 1e-3, a) for v, a in zip(scores, legal))[1]


class ThoroughUzorBot(HeuristicUzorBot):
    """The heuristic, pricing every legal placement in depth instead of the 12 that close most
    now and 12 quiet ones drawn at random: stronger and several times slower (a teacher for
    imitation more than an opponent for play)."""

    name = "thorough"
    TOP = 1_000_000  # more than any table has placements
    TIE = 1e-6  # prices this close are the same price (sums of the same weights in another order)

    def move_scores(self, observation) -> tuple[int, list[int], list[float]] | None:
        """The phase, the legal moves and its worth of each (higher is better), as it weighs them
        to choose: placements by ``price``, market tiles by ``take_scores``, discards by
        ``discard_scores`` (negated), the fork's choices by ``fork_options``; None where there is
        one legal move or nothing to weigh (PASS)."""
        legal = legal_from_mask(observation)
        game = self.position(observation)
        if len(legal) == 1 or game.phase not in (PLACE, FORK, TAKE, DEAD_TAKE, DISCARD):
            return None
        if game.phase == PLACE:
            opp = 1 - self.me
            baseline = self.threats(game, game.hands[opp], opp)
            scores = [self.price(game, a, self.closes_now(game, a), baseline) for a in legal]
        elif game.phase in (TAKE, DEAD_TAKE):
            scores = self.take_scores(game, legal)
        elif game.phase == DISCARD:
            scores = [-v for v in self.discard_scores(game, legal)]
        else:
            worth = {action: value for value, action in self.fork_options(game)}
            scores = [worth[a] for a in legal]
        return game.phase, legal, scores

    def action_probabilities(self, observation) -> np.ndarray:
        """The distribution ``act`` draws from: uniform over the moves it prices best, 0
        elsewhere. Its ties are many (at most placements nothing closes, prepares or threatens,
        so dozens share the top price of 0) and ``act`` breaks them at random; a student
        imitating single draws would chase that noise, one taught this distribution does not."""
        mask = np.asarray(observation["action_mask"])
        probabilities = np.zeros(len(mask), np.float64)
        weighed = self.move_scores(observation)
        if weighed is None:
            legal = legal_from_mask(observation)
            probabilities[legal[0] if len(legal) == 1 else self.act(observation)] = 1.0
            return probabilities
        phase, legal, scores = weighed
        if phase == FORK:  # its choice is not drawn: ``fork``'s argmax, ties to the higher action
            probabilities[max(zip(scores, legal))[1]] = 1.0
            return probabilities
        best = max(scores)
        chosen = [a for v, a in zip(scores, legal) if v >= best - self.TIE]
        probabilities[chosen] = 1.0 / len(chosen)
        return probabilities
