// The person's recordings (issue 42): flows shown once in a shared tab and
// kept in this Chrome profile under KEY_RECORDINGS in chrome.storage.local.
// They leave the profile only when an AI app the person shares a tab with asks
// for them. This file names the key and normalises whatever is stored: an
// older or hand-edited value never breaks the extension, and a value that
// could hold a secret is dropped here, whatever wrote it.

import type { Recording, RecordingParam, Step, StepTarget } from "./protocol.gen";

export const KEY_RECORDINGS = "recordings";

/** The step actions of protocol/steps.go. */
export const STEP_ACTIONS = [
  "click",
  "type",
  "select",
  "check",
  "uncheck",
  "press",
  "navigate",
  "scroll",
  "drag",
  "wait_for",
] as const;

const MAX_RECORDINGS = 200;
const MAX_STEPS = 500;
const MAX_TEXT = 2000;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v.slice(0, MAX_TEXT) : undefined;
}

function target(v: unknown): StepTarget | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const t: StepTarget = {};
  for (const k of ["ref", "role", "name", "near", "frame"] as const) {
    const s = str(o[k]);
    if (s !== undefined) t[k] = s;
  }
  if (typeof o.nth === "number" && Number.isInteger(o.nth) && o.nth > 0) t.nth = o.nth;
  return Object.keys(t).length > 0 ? t : undefined;
}

/** One stored step, or undefined when it is not a step. A secret step keeps no value. */
export function normalizeStep(v: unknown): Step | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.action !== "string" || !(STEP_ACTIONS as readonly string[]).includes(o.action)) return undefined;
  const s: Step = { action: o.action };
  const t = target(o.target);
  if (t) s.target = t;
  const to = target(o.to);
  if (to) s.to = to;
  if (o.secret === true) s.secret = true;
  else {
    const value = str(o.value);
    if (value !== undefined) s.value = value;
  }
  const param = str(o.param);
  if (param !== undefined) s.param = param;
  const dir = str(o.direction);
  if (dir === "up" || dir === "down" || dir === "left" || dir === "right") s.direction = dir;
  if (typeof o.amount === "number" && Number.isFinite(o.amount) && o.amount > 0) s.amount = Math.round(o.amount);
  return s;
}

function param(v: unknown): RecordingParam | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const name = str(o.name);
  if (name === undefined) return undefined;
  const p: RecordingParam = { name };
  if (o.secret === true) p.secret = true;
  else {
    const ex = str(o.example);
    if (ex !== undefined) p.example = ex;
  }
  return p;
}

/** One stored recording, or undefined when it has no name or no valid step. */
export function normalizeRecording(v: unknown): Recording | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const name = str(o.name);
  if (name === undefined || !Array.isArray(o.steps)) return undefined;
  const steps = o.steps.slice(0, MAX_STEPS).map(normalizeStep).filter((s): s is Step => s !== undefined);
  if (steps.length === 0) return undefined;
  const rec: Recording = { name, site: str(o.site) ?? "", created: str(o.created) ?? "", steps };
  const desc = str(o.description);
  if (desc !== undefined) rec.description = desc;
  if (Array.isArray(o.params)) {
    const params = o.params.map(param).filter((p): p is RecordingParam => p !== undefined);
    if (params.length > 0) rec.params = params;
  }
  return rec;
}

/** Reads KEY_RECORDINGS leniently: names unique (the first kept), at most MAX_RECORDINGS. */
export function normalizeRecordings(v: unknown): Recording[] {
  if (!Array.isArray(v)) return [];
  const seen = new Set<string>();
  const out: Recording[] = [];
  for (const item of v) {
    const rec = normalizeRecording(item);
    if (!rec || seen.has(rec.name)) continue;
    seen.add(rec.name);
    out.push(rec);
    if (out.length >= MAX_RECORDINGS) break;
  }
  return out;
}

/** The list with rec stored under its name (replacing one of that name). */
export function putRecording(list: Recording[], rec: Recording): Recording[] {
  return [...list.filter((r) => r.name !== rec.name), rec];
}

/** The list without the recording named name. */
export function deleteRecording(list: Recording[], name: string): Recording[] {
  return list.filter((r) => r.name !== name);
}

/** Renames a recording; an error sentence when from is missing or to is taken. */
export function renameRecording(list: Recording[], from: string, to: string): Recording[] | string {
  const name = to.trim();
  if (name === "") return "A recording needs a name.";
  if (!list.some((r) => r.name === from)) return `There is no recording named "${from}".`;
  if (name !== from && list.some((r) => r.name === name)) return `A recording named "${name}" already exists.`;
  return list.map((r) => (r.name === from ? { ...r, name } : r));
}
