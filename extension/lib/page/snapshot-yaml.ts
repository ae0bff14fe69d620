// The snapshot's output: the tree snapshot.ts builds, as YAML lines within
// a character budget.

/** An element with a role in the snapshot tree. */
export interface SNode {
  role: string;
  name: string;
  attrs: string[];
  ref: string;
  /** Shown after the colon (text field value, slider value…). */
  value?: string;
  /** Leading property lines, e.g. ["/url", "/reset"]. */
  props: Array<[string, string]>;
  children: Array<SNode | string>;
}

interface Budget {
  left: number;
  cut: boolean;
}

/**
 * What the emitter writes: the lines, and where each ref it printed is
 * (flat triples: line index, the column of the ref's text "eN", the column
 * of the line's " [cross-origin]" mark or -1). The service worker names a
 * frame's refs and stitches frames in from these positions (frames.ts),
 * never by reading the text back: a page's text has no say in where a ref
 * is.
 */
export interface Emitted {
  lines: string[];
  marks: number[];
  /** Mark every ref line; else only the lines with a [cross-origin] mark (all the top frame's stitching needs). */
  allMarks: boolean;
}

/** The mark of an iframe line whose frame is not read (yet). */
export const CROSS_ORIGIN = "cross-origin";

export function emitChildren(kids: Array<SNode | string>, indent: string, out: Emitted, budget: Budget): void {
  for (const k of kids) {
    if (budget.cut) return;
    if (typeof k === "string") push(`${indent}- text: ${yamlText(k)}`, out, budget);
    else emitNode(k, indent, out, budget);
  }
}

function emitNode(n: SNode, indent: string, out: Emitted, budget: Budget): void {
  let head = `${indent}- ${roleText(n.role)}`;
  if (n.name !== "") head += ` ${quote(n.name)}`;
  let cross = -1;
  for (const a of n.attrs) {
    if (a === CROSS_ORIGIN) cross = head.length;
    head += ` [${attrText(a)}]`;
  }
  const refAt = head.length + " [ref=".length;
  head += ` [ref=${n.ref}]`;
  const ref = (line: string) => push(line, out, budget, [refAt, cross]);
  const hasBlock = n.props.length > 0 || n.children.length > 1 ||
    (n.children.length === 1 && typeof n.children[0] !== "string");
  if (n.value !== undefined && n.children.length === 0 && n.props.length === 0) {
    ref(`${head}: ${yamlText(n.value)}`);
    return;
  }
  if (!hasBlock) {
    const only = n.children[0];
    ref(typeof only === "string" ? `${head}: ${yamlText(only)}` : head);
    return;
  }
  ref(`${head}:`);
  const inner = indent + "  ";
  for (const [k, v] of n.props) push(`${inner}- ${k}: ${yamlText(v)}`, out, budget);
  emitChildren(n.children, inner, out, budget);
}

function push(line: string, out: Emitted, budget: Budget, mark?: [number, number]): void {
  if (budget.cut) return;
  if (line.length + 1 > budget.left) {
    budget.cut = true;
    return;
  }
  budget.left -= line.length + 1;
  if (mark && (out.allMarks || mark[1] >= 0)) out.marks.push(out.lines.length, mark[0], mark[1]);
  out.lines.push(line);
}

// ---- page text on a line ---------------------------------------------------
//
// Every string a page controls (names, values, text, a role as the page
// wrote it) is printed so that it stays on its line and cannot pass for
// anything else (issue 40): no line break, control, look-alike space or
// invisible character reaches the output as itself. Space-like characters
// (no-break and the typographic spaces) become a plain space; line and
// paragraph separators, NEL, the C0 and C1 controls, DEL, zero-width and
// bidirectional-format characters are written as JSON escapes inside a
// quoted string. A quoted string escapes its quotes and backslashes, so it
// cannot be closed from inside, and nothing after "- " on a line is the
// page's but within quotes or after a key's colon.

/** Characters that look like a plain space. */
const SPACE_LIKE = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
/** Characters that break a line, control the terminal or the text direction, or are invisible. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
const ESCAPED = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/;
const ESCAPED_G = new RegExp(ESCAPED.source, "g");

/** s as a double-quoted string on one line (JSON syntax, with the escapes above). */
export function quote(s: string): string {
  return JSON.stringify(s.replace(SPACE_LIKE, " ")).replace(ESCAPED_G, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A role as printed: a plain ARIA-style token as is, anything else quoted (a page's raw role attribute cannot write a line). */
export function roleText(role: string): string {
  return /^[a-z][a-z0-9-]{0,39}$/i.test(role) ? role : quote(role);
}

/** A bracketed attribute ("level=2", "cross-origin"): ours, but quoted should one ever carry odd text. */
function attrText(a: string): string {
  return /^[\w.=%/-]+$/.test(a) ? a : quote(a);
}

const YAML_NEEDS_QUOTES = /^[\s\-?:,[\]{}#&*!|>'"%@`]|[\s:]$|: | #|[\n\r\t]/;
const YAML_SCALAR = /^(?:true|false|yes|no|on|off|null|~|[-+]?(?:\d[\d_,]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|\.inf|\.nan)$/i;

/** Text after "key: " as a YAML scalar: plain when unambiguous and clean, else quoted (quote). */
export function yamlText(s: string): string {
  const t = s.replace(SPACE_LIKE, " ");
  if (t === "" || YAML_NEEDS_QUOTES.test(t) || YAML_SCALAR.test(t) || ESCAPED.test(t)) return quote(t);
  return t;
}
