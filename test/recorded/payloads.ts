/**
 * The recorded payloads (testkit/fixtures/recorded): the manifest, each file read and checked for the shape
 * its kind needs (parse, don't cast: a malformed fixture fails its test with the file's name).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the recorded payloads live. */
export const RECORDED_DIR = join(import.meta.dirname, "../../testkit/fixtures/recorded");

/** How a payload reaches the bot. */
export type PayloadKind =
	| "slack-event"
	| "slack-interactive"
	| "slack-command"
	| "discord-interaction"
	| "discord-dispatch"
	| "openai-responses-stream"
	| "openai-chat-stream"
	| "openai-error-body"
	/** What a Slack Web API method answered (the fake answers it in the service's place). */
	| "slack-response";

/** One manifest entry. */
export interface RecordedEntry {
	file: string;
	kind: PayloadKind;
	what: string;
	origin: string;
	source: { repository: string; path: string; commit: string; pointer?: string } | { url: string };
	/** What the replay rewrites to reach the test bot, and why. */
	adapted: Array<{ field: string; why: string }>;
	/** For discord-dispatch: the gateway event name. */
	event?: string;
}

const KINDS = new Set<string>([
	"slack-event",
	"slack-interactive",
	"slack-command",
	"discord-interaction",
	"discord-dispatch",
	"openai-responses-stream",
	"openai-chat-stream",
	"openai-error-body",
	"slack-response",
]);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function entryOf(raw: unknown, index: number): RecordedEntry {
	if (!isObject(raw)) throw new Error(`manifest entry ${index} is not an object`);
	const { file, kind, what, origin, source, adapted } = raw;
	if (typeof file !== "string" || typeof kind !== "string" || !KINDS.has(kind))
		throw new Error(`manifest entry ${index}: file and a known kind are required`);
	if (typeof what !== "string" || typeof origin !== "string" || !isObject(source) || !Array.isArray(adapted))
		throw new Error(`manifest entry ${file}: what, origin, source and adapted are required`);
	return raw as unknown as RecordedEntry;
}

/** Every manifest entry, in the manifest's order. */
export function recordedEntries(): RecordedEntry[] {
	const manifest: unknown = JSON.parse(readFileSync(join(RECORDED_DIR, "manifest.json"), "utf8"));
	if (!isObject(manifest) || !Array.isArray(manifest.payloads)) throw new Error("manifest.json has no payloads");
	return manifest.payloads.map(entryOf);
}

/** The entries of some kinds. */
export function entriesOf(...kinds: PayloadKind[]): RecordedEntry[] {
	return recordedEntries().filter((e) => kinds.includes(e.kind));
}

/** A fresh copy of a payload (tests adapt their copy, never the file). */
export function readPayload(file: string): unknown {
	return JSON.parse(readFileSync(join(RECORDED_DIR, file), "utf8"));
}

/** A payload that must be a JSON object. */
export function readObject(file: string): Json {
	const value = readPayload(file);
	if (!isObject(value)) throw new Error(`${file} is not a JSON object`);
	return value;
}

/** A recorded stream: its events in order (objects, or the literal "[DONE]"). */
export function readStream(file: string): Array<Json | "[DONE]"> {
	const value = readPayload(file);
	if (!Array.isArray(value) || !value.every((e) => isObject(e) || e === "[DONE]"))
		throw new Error(`${file} is not a list of stream events`);
	return value as Array<Json | "[DONE]">;
}

/** The event of an Events API envelope (event_callback). */
export function eventOf(envelope: Json): Json {
	if (!isObject(envelope.event)) throw new Error("not an event_callback envelope");
	return envelope.event;
}

/** The dotted paths (array items by index) where `adapted` differs from `original`: what a replay rewrote. */
export function changedPaths(original: unknown, adapted: unknown, at = ""): string[] {
	if (Object.is(original, adapted)) return [];
	const both = (v: unknown) => typeof v === "object" && v !== null;
	if (!both(original) || !both(adapted) || Array.isArray(original) !== Array.isArray(adapted)) return [at];
	const a = original as Record<string, unknown>;
	const b = adapted as Record<string, unknown>;
	const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
	return keys.flatMap((k) => changedPaths(a[k], b[k], at === "" ? k : `${at}.${k}`));
}

/** The fields a replay rewrote, as the manifest must list them (sorted). */
export function listedAdaptations(entry: RecordedEntry): string[] {
	return entry.adapted.map((a) => a.field).sort();
}
