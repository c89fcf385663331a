// A few lines instead of a framework: build elements with attributes and
// children, and swap a container's content. Text always goes in as text
// nodes, so nothing from the API is ever parsed as HTML.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag: string, attributes: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces everything in `container` with `children`. */
export function replace(container: Element, ...children: Child[]): void {
  container.replaceChildren();
  append(container, children);
}

/** A section with a heading: the unit every page is made of. */
export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, h('h2', {}, title), ...children);
}

/** A message in place of content that could not load; says what, never the data or the token. */
export function failure(what: string, error: unknown): HTMLElement {
  const detail = error instanceof Error ? error.message : 'unexpected error';
  return h('p', { class: 'error', role: 'alert' }, `Could not load ${what}: ${detail}`);
}
