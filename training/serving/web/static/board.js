// The board: the server's SVG picture, with the page's hooks on its elements.
//
// Every clickable part of the picture is an element, <rect class="el" data-el="NAME">, drawn
// on top by the server. The page attaches the legal moves the server lists to their elements:
// data-action="N" where an element holds exactly one move, data-choices="N M …" where it holds
// several (a click opens the choice among them). Arrow keys move a cursor over the elements;
// Enter or Space activates the one under it.

const KEYS = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

export class Board {
  constructor(container, onActivate) {
    this.container = container;
    this.onActivate = onActivate;
    this.cursorName = null;
    this.moves = new Map();
    container.addEventListener("click", (event) => {
      const element = event.target.closest(".el");
      if (element && container.contains(element)) {
        this.setCursor(element.dataset.el, false);
        this.onActivate(element);
      }
    });
    container.addEventListener("keydown", (event) => this.key(event));
  }

  show(svgText) {
    this.container.innerHTML = svgText;
    this.drawCursor();
  }

  elements() {
    return [...this.container.querySelectorAll(".el")];
  }

  element(name) {
    return this.container.querySelector(`.el[data-el="${CSS.escape(name)}"]`);
  }

  // Attach the moves [{action, notation, element}] to their elements (none when not enabled).
  attach(actions, enabled) {
    const byElement = new Map();
    for (const move of actions) {
      if (!byElement.has(move.element)) {
        byElement.set(move.element, []);
      }
      byElement.get(move.element).push(move);
    }
    this.moves = byElement;
    for (const element of this.elements()) {
      delete element.dataset.action;
      delete element.dataset.choices;
      element.classList.remove("playable");
      const moves = enabled ? byElement.get(element.dataset.el) : undefined;
      if (!moves) {
        continue;
      }
      if (moves.length === 1) {
        element.dataset.action = String(moves[0].action);
      } else {
        element.dataset.choices = moves.map((move) => move.action).join(" ");
      }
      element.classList.add("playable");
    }
  }

  movesOf(element) {
    return this.moves.get(element.dataset.el) || [];
  }

  // Outline the elements of each seat's last turn: {"0": [names], "1": [names]}.
  mark(last) {
    for (const element of this.elements()) {
      for (const name of [...element.classList]) {
        if (name.startsWith("last-")) {
          element.classList.remove(name);
        }
      }
    }
    for (const [seat, names] of Object.entries(last || {})) {
      for (const name of names) {
        const element = this.element(name);
        if (element) {
          element.classList.add(`last-${seat}`);
        }
      }
    }
  }

  // ----- the keyboard cursor -----------------------------------------------------------------
  setCursor(name, focus = true) {
    this.cursorName = name;
    this.drawCursor();
    if (focus) {
      this.container.focus({ preventScroll: true });
    }
  }

  drawCursor() {
    for (const element of this.container.querySelectorAll(".el.cursor")) {
      element.classList.remove("cursor");
    }
    const element = this.cursorName ? this.element(this.cursorName) : null;
    if (element) {
      element.classList.add("cursor");
    }
  }

  cursorElement() {
    let element = this.cursorName ? this.element(this.cursorName) : null;
    if (!element) {
      element = this.container.querySelector(".el.playable") || this.elements()[0] || null;
    }
    return element;
  }

  key(event) {
    if (event.key in KEYS) {
      event.preventDefault();
      const current = this.cursorElement();
      if (!current) {
        return;
      }
      const next = this.cursorName && this.element(this.cursorName) ? this.neighbour(current, ...KEYS[event.key]) : current;
      if (next) {
        this.setCursor(next.dataset.el);
        next.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
    } else if (event.key === "Enter" || event.key === " ") {
      const current = this.cursorName ? this.element(this.cursorName) : null;
      if (current) {
        event.preventDefault();
        this.onActivate(current);
      }
    }
  }

  // The nearest element in direction (dx, dy) from `from`: ahead of it, little off the line.
  neighbour(from, dx, dy) {
    const centre = (element) => {
      const box = element.getBBox();
      return [box.x + box.width / 2, box.y + box.height / 2];
    };
    const [x0, y0] = centre(from);
    let best = null;
    let bestScore = Infinity;
    for (const element of this.elements()) {
      if (element === from) {
        continue;
      }
      const [x, y] = centre(element);
      const along = (x - x0) * dx + (y - y0) * dy;
      const across = Math.abs((x - x0) * dy - (y - y0) * dx);
      if (along <= 0.5) {
        continue;
      }
      const score = along + 2.5 * across;
      if (score < bestScore) {
        bestScore = score;
        best = element;
      }
    }
    return best;
  }
}
