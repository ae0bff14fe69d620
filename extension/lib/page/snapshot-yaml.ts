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

export function emitChildren(kids: Array<SNode | string>, indent: string, lines: string[], budget: Budget): void {
  for (const k of kids) {
    if (budget.cut) return;
    if (typeof k === "string") push(`${indent}- text: ${yamlText(k)}`, lines, budget);
    else emitNode(k, indent, lines, budget);
  }
}

function emitNode(n: SNode, indent: string, lines: string[], budget: Budget): void {
  let head = `${indent}- ${n.role}`;
  if (n.name !== "") head += ` ${JSON.stringify(n.name)}`;
  for (const a of n.attrs) head += ` [${a}]`;
  head += ` [ref=${n.ref}]`;
  const hasBlock = n.props.length > 0 || n.children.length > 1 ||
    (n.children.length === 1 && typeof n.children[0] !== "string");
  if (n.value !== undefined && n.children.length === 0 && n.props.length === 0) {
    push(`${head}: ${yamlText(n.value)}`, lines, budget);
    return;
  }
  if (!hasBlock) {
    const only = n.children[0];
    push(typeof only === "string" ? `${head}: ${yamlText(only)}` : head, lines, budget);
    return;
  }
  push(`${head}:`, lines, budget);
  const inner = indent + "  ";
  for (const [k, v] of n.props) push(`${inner}- ${k}: ${yamlText(v)}`, lines, budget);
  emitChildren(n.children, inner, lines, budget);
}

function push(line: string, lines: string[], budget: Budget): void {
  if (budget.cut) return;
  if (line.length + 1 > budget.left) {
    budget.cut = true;
    return;
  }
  budget.left -= line.length + 1;
  lines.push(line);
}

const YAML_NEEDS_QUOTES = /^[\s\-?:,[\]{}#&*!|>'"%@`]|[\s:]$|: | #|[\n\r\t\u2028\u2029]/;
const YAML_SCALAR = /^(?:true|false|yes|no|on|off|null|~|[-+]?(?:\d[\d_,]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|\.inf|\.nan)$/i;

/** Text after "key: " as a YAML scalar: plain when unambiguous, else double-quoted. */
export function yamlText(s: string): string {
  if (s === "" || YAML_NEEDS_QUOTES.test(s) || YAML_SCALAR.test(s)) return JSON.stringify(s);
  return s;
}
