// The board's size on the screen. It fits the width it has; on a narrow screen (a phone) it is
// drawn large enough that every clickable part is at least MIN_TAP_PX across, and the board
// scrolls inside its frame (never the page); the − / fit / + buttons zoom it by hand.

const MIN_TAP_PX = 32;
const NARROW_PX = 700; // below this width the page is laid out for a phone
let zoom = 1;

export function narrow() {
  return window.innerWidth < NARROW_PX;
}

function smallestElement(svg) {
  let smallest = Infinity;
  for (const element of svg.querySelectorAll("rect.el")) {
    const size = Math.min(element.width.baseVal.value, element.height.baseVal.value);
    if (size > 0) {
      smallest = Math.min(smallest, size);
    }
  }
  return smallest;
}

// Size the board's picture: fit the frame (reset: forget the hand zoom), tap-sized on a phone.
export function fitBoard(container, reset = false) {
  if (reset) {
    zoom = 1;
  }
  const svg = container.querySelector("svg");
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width) {
    return;
  }
  const box = svg.viewBox.baseVal;
  const style = getComputedStyle(container);
  const room = container.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  let width = Math.min(box.width, room);
  const smallest = smallestElement(svg);
  if (narrow() && smallest < Infinity && (width * smallest) / box.width < MIN_TAP_PX) {
    width = (MIN_TAP_PX * box.width) / smallest;
  }
  width = Math.max(80, width * zoom);
  svg.style.width = `${Math.ceil(width)}px`;
  svg.style.maxWidth = "none";
  svg.style.height = "auto";
}

export function zoomBoard(container, factor) {
  zoom = Math.min(4, Math.max(0.25, zoom * factor));
  fitBoard(container);
}
