/**
 * Forget-me in lessons someone else started (group lessons): the person's id
 * and name go from the record (their messages' authors, answers, ballots of
 * open votes, tries, mentions in text), replaced by ANONYMOUS_PARTICIPANT, so
 * the lesson and its counts stay whole. Messages that change are replaced
 * (new objects), the others kept as they are (see record-edit.ts).
 *
 * A name is more than its exact spelling: people write "ada" or "Lovelace" for
 * "Ada Lovelace". So every name the record knows for the person (the one given,
 * and any other their participant entries carry: a display name, a username)
 * is scrubbed whole and token by token (each token of 2 characters or more, as
 * a whole word, in any case) from every text of the transcript, tool inputs and
 * results included. Structural fields (part types, tool call ids, states, the
 * lesson's language...) are left alone: a name like "De Morgan" must not turn the
 * language "de" into "anonymous". Object keys (ballots are keyed by member id)
 * lose the id and the exact names only.
 */

import { ANONYMOUS_PARTICIPANT, type Participant } from "../../core/contracts/events.ts";
import type { SessionRecord } from "../store/types.ts";

/** Shortest name token scrubbed on its own (a one-letter initial would hit every "a"). */
const MIN_TOKEN = 2;

/** Fields whose strings are structure, not text: never token-scrubbed (the id itself still goes). */
const STRUCTURAL = new Set([
	"type",
	"role",
	"state",
	"toolCallId",
	"toolName",
	"id",
	"kind",
	"agent",
	"note",
	"at",
	"mediaType",
	"url",
	"language",
	"mode",
	"format",
	"reason",
	"createdAt",
	"updatedAt",
	"sessionId",
	"providerMetadata",
	"callProviderMetadata",
]);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A whole-word, case-insensitive pattern of `words` (longest first, so a full name wins over its first token). */
function wordPattern(words: Iterable<string>): RegExp {
	const alternatives = [...new Set(words)].sort((a, b) => b.length - a.length).map(escapeRegExp);
	return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}_])`, "giu");
}

/** Every name `who` goes by in `value` (participant entries `{ id, name }` with their id). */
function namesIn(value: unknown, id: string, into: Set<string>, depth = 0): void {
	if (depth > 64 || typeof value !== "object" || value === null) return;
	if (Array.isArray(value)) {
		for (const v of value) namesIn(v, id, into, depth + 1);
		return;
	}
	const obj = value as Record<string, unknown>;
	if (obj.id === id && typeof obj.name === "string") into.add(obj.name);
	for (const v of Object.values(obj)) namesIn(v, id, into, depth + 1);
}

/** The patterns that scrub `who` from a record: `exact` (id and whole names) and `words` (those plus name tokens). */
export function forgetPatterns(who: Participant, record?: SessionRecord): { exact: RegExp; words: RegExp } {
	const names = new Set<string>();
	if (who.name) names.add(who.name);
	if (record) namesIn(record, who.id, names);
	const whole = [...names].map((n) => n.trim()).filter((n) => n.length >= MIN_TOKEN);
	const tokens = whole.flatMap((n) => n.split(/[^\p{L}\p{N}_]+/u)).filter((t) => t.length >= MIN_TOKEN);
	return { exact: wordPattern([who.id, ...whole]), words: wordPattern([who.id, ...whole, ...tokens]) };
}

interface Patterns {
	who: Participant;
	exact: RegExp;
	words: RegExp;
}

/** A copy of `value` without `who` (the same object when nothing named them). */
function scrub(value: unknown, p: Patterns, text: boolean): { value: unknown; changed: boolean } {
	if (typeof value === "string") {
		const next = value.replace(text ? p.words : p.exact, ANONYMOUS_PARTICIPANT);
		return { value: next, changed: next !== value };
	}
	if (Array.isArray(value)) {
		let changed = false;
		const out = value.map((v) => {
			const r = scrub(v, p, text);
			changed ||= r.changed;
			return r.value;
		});
		return changed ? { value: out, changed } : { value, changed };
	}
	if (typeof value !== "object" || value === null) return { value, changed: false };
	const obj = value as Record<string, unknown>;
	// A participant ({ id, name? }): the anonymous one, without a name. Someone else's stays as it is
	// (another member called "Ada Smith" keeps her name).
	if (typeof obj.id === "string" && Object.keys(obj).every((k) => k === "id" || k === "name")) {
		if (obj.id === p.who.id) return { value: { id: ANONYMOUS_PARTICIPANT }, changed: true };
		return { value, changed: false };
	}
	let changed = false;
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(obj)) {
		const key = k.replace(p.exact, ANONYMOUS_PARTICIPANT);
		const r = scrub(v, p, text && !STRUCTURAL.has(k));
		changed ||= r.changed || key !== k;
		out[key] = r.value;
	}
	return changed ? { value: out, changed } : { value, changed };
}

/**
 * Remove `who` from `record` in place (changed messages replaced); true when anything named them.
 * The record's own learner is not touched here: their lessons are deleted whole.
 */
export function anonymiseParticipant(record: SessionRecord, who: Participant): boolean {
	if (who.id === "" || who.id === ANONYMOUS_PARTICIPANT) return false;
	const p: Patterns = { who, ...forgetPatterns(who, record) };
	let changed = false;
	record.messages = record.messages.map((m) => {
		const r = scrub(m, p, true);
		changed ||= r.changed;
		return r.value as typeof m;
	});
	for (const key of Object.keys(record) as Array<keyof SessionRecord>) {
		if (key === "messages" || key === "sessionId" || key === "version") continue;
		// Adapter-owned keys (extra) are ids and picture keys, not text: the id and exact names only.
		const r = scrub(record[key], p, !STRUCTURAL.has(key) && key !== "extra");
		if (r.changed) {
			(record as unknown as Record<string, unknown>)[key] = r.value;
			changed = true;
		}
	}
	return changed;
}
