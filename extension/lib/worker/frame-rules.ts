// Site rules in the frames of a shared tab (issue 44: the rules hold
// everywhere). The gate (background/siterules.ts) checks the top frame's
// site; a frame of the page may be on another site, one the person or the
// organisation marked never or read only. Pure logic: the rule in force in
// a frame (the strictest of its own site's and every ancestor's, the top
// frame's included), whether an op may reach the frame under it, and the
// words: the snapshot's line of a blocked frame and the refusals.
// framed.ts and frame-link.ts apply it through FramesPort.ruleOf.

import { RULE_WORDS, actionWords, type RuleInForce } from "../siterules";
import { MAX_DEPTH, splitRef, type FrameInfo } from "./frames";

/** The rule in force on a URL (background/siterules.ts ruleForUrl). */
export type RuleOf = (url: string) => RuleInForce;

/** The rule in force in one frame, and whether the top frame's rule is it (the gate decided that one already). */
export interface FrameRule {
  rule: RuleInForce;
  fromTop: boolean;
}

/** How far a rule keeps the AI off: never > read only > ask each action > ask only risky ones > act. */
export function rank(r: RuleInForce): number {
  switch (r.rule) {
    case "never":
      return 4;
    case "read_only":
      return 3;
    case "ask":
      return r.scope === "each" ? 2 : 1;
    default:
      return 0;
  }
}

/**
 * The URL a frame's rule is looked up by: a blob: or filesystem: URL names
 * the origin that made it (its content is that site's); anything else as
 * it is (about:blank, about:srcdoc and data: have no host and take their
 * ancestors' rules through the chain).
 */
export function ruleUrl(url: string): string {
  const m = /^(blob|filesystem):(.*)$/i.exec(url);
  return m ? m[2]! : url;
}

/**
 * The rule in force in frame frameId of the tree frames: the strictest of
 * the rules of its site and of every frame above it, the top frame's
 * included. On a tie the outer frame's is kept, so the top frame's never
 * wins over everything and a frame inside a never frame is never too.
 * Undefined when the frame (or a frame above it) is not in the tree: the
 * caller treats it as gone.
 */
export function chainRule(frames: FrameInfo[], frameId: number, ruleOf: RuleOf): FrameRule | undefined {
  const byId = new Map(frames.map((f) => [f.frameId, f]));
  const chain: FrameInfo[] = [];
  for (let f = byId.get(frameId); f; f = f.parentFrameId >= 0 ? byId.get(f.parentFrameId) : undefined) {
    if (chain.includes(f) || chain.length > MAX_DEPTH + 2) return undefined;
    chain.push(f);
    if (f.parentFrameId < 0) break;
  }
  const top = chain[chain.length - 1];
  if (!top || top.parentFrameId >= 0) return undefined;
  // Outermost first: a frame's rule replaces the one so far only when it is stricter.
  let best: FrameRule | undefined;
  for (const f of [...chain].reverse()) {
    const r = ruleOf(ruleUrl(f.url));
    if (!best || rank(r) > rank(best.rule)) best = { rule: r, fromTop: f === top };
  }
  return best;
}

/** The frame document's rule: found by documentId when known, else by frameId. */
export function ruleOfTarget(frames: FrameInfo[], t: { frameId: number; documentId?: string }, ruleOf: RuleOf): FrameRule | undefined {
  const f = t.documentId !== undefined ? frames.find((x) => x.documentId === t.documentId) : frames.find((x) => x.frameId === t.frameId);
  return f ? chainRule(frames, f.frameId, ruleOf) : undefined;
}

/** Whether a frame's content is kept from the AI altogether (never, set for the frame's site or one above it, not the top's). */
export function blocked(r: FrameRule | undefined): boolean {
  return r !== undefined && !r.fromTop && r.rule.rule === "never";
}

/** The refs a wire request names (ref, startRef, endRef, each field's ref). */
export function refsOf(p: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of ["ref", "startRef", "endRef"]) if (typeof p[k] === "string") out.push(p[k]);
  if (Array.isArray(p.fields)) for (const f of p.fields) if (f && typeof (f as { ref?: unknown }).ref === "string") out.push((f as { ref: string }).ref);
  return out;
}

/**
 * The strictest rule of the frames a request's frame refs are in, with the
 * ref (undefined: no frame ref, or every one under the top frame's rule).
 * For the gate: an action by ref into a stricter frame is refused or asked
 * by that frame's rule.
 */
export async function strictestRef(p: Record<string, unknown>, ruleOfRef: (ref: string) => Promise<FrameRule | null>): Promise<{ ref: string; fr: FrameRule } | undefined> {
  let best: { ref: string; fr: FrameRule } | undefined;
  for (const ref of refsOf(p)) {
    const s = splitRef(ref);
    if (!s) continue;
    const fr = await ruleOfRef(s.full);
    if (fr && !fr.fromTop && (!best || rank(fr.rule) > rank(best.fr.rule))) best = { ref: s.full, fr };
  }
  return best;
}

/** The frames of a tree whose content is kept from the AI (blocked), by frameId; none without rules. */
export function blockedFrames(frames: FrameInfo[], ruleOf: RuleOf | undefined): Map<number, RuleInForce> {
  const out = new Map<number, RuleInForce>();
  if (!ruleOf) return out;
  for (const f of frames) {
    const fr = chainRule(frames, f.frameId, ruleOf);
    if (blocked(fr)) out.set(f.frameId, fr!.rule);
  }
  return out;
}

/** The frames under a rule stricter than the top frame's (never, read only, ask), by frameId: real input at a point on one is refused. */
export function stricterFrames(frames: FrameInfo[], ruleOf: RuleOf | undefined): Map<number, FrameRule> {
  const out = new Map<number, FrameRule>();
  if (!ruleOf) return out;
  for (const f of frames) {
    const fr = chainRule(frames, f.frameId, ruleOf);
    if (fr && !fr.fromTop && rank(fr.rule) > 0) out.set(f.frameId, fr);
  }
  return out;
}

function site(r: RuleInForce): string {
  return r.pattern !== "" ? r.pattern : r.host;
}

function who(r: RuleInForce): string {
  return r.source === "policy" ? "your organisation" : "your site rules";
}

/** The mark of a blocked frame's iframe line in the snapshot (in place of [cross-origin]); nothing of the frame is under it. */
export function blockedMark(r: RuleInForce): string {
  return ` [blocked by ${who(r)}: never on ${site(r)}]`;
}

/** What an op does to a frame, for the rules: reads it, acts by ref, or acts at a point or the focus (the gate could not ask about those). */
export type OpKind = "read" | "action" | "point";

/** The content-script ops that act on a page (the wire's actions; scrolling is a read, as for the top frame). */
const ACTIONS: ReadonlySet<string> = new Set(["click", "hover", "type", "select", "drag", "upload", "fill_form", "click_check", "click_effect"]);
const POINTS: ReadonlySet<string> = new Set(["click_xy", "drag_xy", "press_key"]);

export function opKind(op: string): OpKind {
  return POINTS.has(op) ? "point" : ACTIONS.has(op) ? "action" : "read";
}

/** The wire type whose words name an op ("the AI may …"). */
function opWords(op: string): string {
  const wire: Record<string, string> = { select: "browser_select_option", upload: "browser_upload_file", click_check: "browser_click", click_effect: "browser_click" };
  return actionWords(wire[op] ?? `browser_${op}`);
}

/**
 * Why op may not reach a frame whose rule is fr (undefined: it may). where
 * says what is in the frame ("ref f2e5", "the point", "the focused field").
 * The top frame's rule is the gate's (fromTop: nothing more here). never
 * refuses every op, read only every action, and ask the actions at a point
 * or on the focus (an action by ref was put to the person by the gate).
 */
export function frameRefusal(fr: FrameRule, op: string, where: string): string | undefined {
  return refusalFor(fr, opKind(op), opWords(op), where);
}

/** frameRefusal for an op of kind whose words ("type", "click") are what. */
export function refusalFor(fr: FrameRule, kind: OpKind, what: string, where: string): string | undefined {
  if (fr.fromTop) return undefined;
  const r = fr.rule;
  const whose = r.source === "policy" ? "your organisation's policy" : "the person's site rules";
  const inFrame = `${where} is in a frame of the page on ${r.host || site(r)}`;
  switch (r.rule) {
    case "never":
      return (
        `Not done: ${inFrame}, a site ${whose} ${r.source === "policy" ? "keeps" : "keep"} from the AI (never: ${site(r)}). ` +
        "monkbrowse does not read or act on that frame, and nothing was sent to it. Work with the rest of the page, or ask the person to do what is needed in the frame themselves."
      );
    case "read_only":
      if (kind === "read") return undefined;
      return (
        `Not done: ${inFrame}, which ${whose} ${r.source === "policy" ? "makes" : "make"} read only for the AI (${site(r)}): ` +
        `reading the frame works, but to ${what} there is refused and nothing was sent to it. ` +
        (r.source === "policy" ? "Only the organisation's administrator can change that; " : "Ask the person to do it themselves, or to change the rule in the monkbrowse popup; ") +
        "do not try another way."
      );
    case "ask":
      if (kind !== "point") return undefined;
      return (
        `Not done: ${inFrame}, set to "${RULE_WORDS.ask}" (${site(r)}, ${whose}), and monkbrowse asks the person only about an action by ref. ` +
        "Nothing was sent to the frame. Take a browser_snapshot and act on the element by its ref in that frame (f…e…): the person is asked to allow it."
      );
    default:
      return undefined;
  }
}
