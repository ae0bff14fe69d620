// The messaging envelope's frames (DESIGN §4) and their codec.
//
// Encoding writes keys in a fixed order (k,id,type,payload for requests,
// k,id,ok,result,error,code for responses, k,type,payload for notifies) and follows
// the wire's one encoding rule, Go's encoding/json without HTML escaping:
// JSON.stringify's output with U+2028 and U+2029 escaped, <, > and & left as
// they are. So both sides re-encode the golden frames byte for byte
// (protocol/testdata/frames; messaging.Frame.Encode is held to the same files).

export interface RequestFrame {
  k: "req";
  id: string;
  type: string;
  payload?: unknown;
}

export interface ResponseFrame {
  k: "res";
  id: string;
  ok: boolean;
  result?: unknown;
  error?: string;
  /** An ok:false response's machine-readable reason (ERROR_CODES); error stays the sentence. */
  code?: string;
}

export interface NotifyFrame {
  k: "ntf";
  type: string;
  payload?: unknown;
}

export interface PingFrame {
  k: "png";
}

export interface PongFrame {
  k: "pog";
}

export type Frame = RequestFrame | ResponseFrame | NotifyFrame | PingFrame | PongFrame;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * decodeFrame parses one text frame. It returns null for anything malformed:
 * bad JSON, not an object, unknown `k`, a request or response without an id,
 * a request or notify without a type, a response without a boolean `ok`.
 */
export function decodeFrame(text: string): Frame | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(v)) return null;
  switch (v.k) {
    case "req": {
      if (typeof v.id !== "string" || v.id === "" || typeof v.type !== "string" || v.type === "") {
        return null;
      }
      const f: RequestFrame = { k: "req", id: v.id, type: v.type };
      if ("payload" in v) f.payload = v.payload;
      return f;
    }
    case "res": {
      if (typeof v.id !== "string" || v.id === "" || typeof v.ok !== "boolean") return null;
      if ("error" in v && v.error !== undefined && typeof v.error !== "string") return null;
      if ("code" in v && v.code !== undefined && typeof v.code !== "string") return null;
      const f: ResponseFrame = { k: "res", id: v.id, ok: v.ok };
      if ("result" in v) f.result = v.result;
      if (typeof v.error === "string") f.error = v.error;
      if (typeof v.code === "string") f.code = v.code;
      return f;
    }
    case "ntf": {
      if (typeof v.type !== "string" || v.type === "") return null;
      const f: NotifyFrame = { k: "ntf", type: v.type };
      if ("payload" in v) f.payload = v.payload;
      return f;
    }
    case "png":
      return { k: "png" };
    case "pog":
      return { k: "pog" };
    default:
      return null;
  }
}

// U+2028 and U+2029 can only occur inside strings in JSON text, so replacing
// them in the whole output escapes exactly those string characters.
const lineSeparators = /[\u2028\u2029]/g;

function json(v: unknown): string {
  const s = JSON.stringify(v === undefined ? null : v);
  return s.replace(lineSeparators, (c) => "\\u" + c.charCodeAt(0).toString(16));
}

/** encodeFrame writes a frame as compact JSON with the envelope's key order. */
export function encodeFrame(f: Frame): string {
  switch (f.k) {
    case "req": {
      let s = `{"k":"req","id":${json(f.id)},"type":${json(f.type)}`;
      if (f.payload !== undefined) s += `,"payload":${json(f.payload)}`;
      return s + "}";
    }
    case "res": {
      let s = `{"k":"res","id":${json(f.id)},"ok":${f.ok ? "true" : "false"}`;
      if (f.result !== undefined) s += `,"result":${json(f.result)}`;
      if (f.error !== undefined) s += `,"error":${json(f.error)}`;
      if (f.code !== undefined) s += `,"code":${json(f.code)}`;
      return s + "}";
    }
    case "ntf": {
      let s = `{"k":"ntf","type":${json(f.type)}`;
      if (f.payload !== undefined) s += `,"payload":${json(f.payload)}`;
      return s + "}";
    }
    case "png":
      return `{"k":"png"}`;
    case "pog":
      return `{"k":"pog"}`;
  }
}
