/**
 * Forget-me in lessons someone else started (group lessons): the person's id
 * and name go from the record (their messages' authors, answers, ballots of
 * open votes, tries, mentions in text), replaced by ANONYMOUS_PARTICIPANT, so
 * the lesson and its counts stay whole. Messages that change are replaced
 * (new objects), the others kept as they are (see record-edit.ts).
 */

import type { Participant } from "../../core/contracts/events.ts";
import type { SessionRecord } from "../store/types.ts";

/** Who a forgotten participant becomes. */
export const ANONYMOUS_PARTICIPANT = "anonymous";

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A copy of `value` without `who` (undefined when nothing named them). */
function scrub(value: unknown, who: Participant, pattern: RegExp): { value: unknown; changed: boolean } {
	if (typeof value === "string") {
		const next = value.replace(pattern, ANONYMOUS_PARTICIPANT);
		return { value: next, changed: next !== value };
	}
	if (Array.isArray(value)) {
		let changed = false;
		const out = value.map((v) => {
			const r = scrub(v, who, pattern);
			changed ||= r.changed;
			return r.value;
		});
		return changed ? { value: out, changed } : { value, changed };
	}
	if (typeof value !== "object" || value === null) return { value, changed: false };
	const obj = value as Record<string, unknown>;
	// A participant ({ id, name? }): the anonymous one, without a name.
	if (obj.id === who.id && Object.keys(obj).every((k) => k === "id" || k === "name"))
		return { value: { id: ANONYMOUS_PARTICIPANT }, changed: true };
	let changed = false;
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(obj)) {
		const key = k.replace(pattern, ANONYMOUS_PARTICIPANT);
		const r = scrub(v, who, pattern);
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
	const names = [who.id, ...(who.name && who.name.length >= 2 ? [who.name] : [])].map(escapeRegExp);
	const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${names.join("|")})(?![\\p{L}\\p{N}_])`, "gu");
	let changed = false;
	record.messages = record.messages.map((m) => {
		const r = scrub(m, who, pattern);
		changed ||= r.changed;
		return r.value as typeof m;
	});
	for (const key of Object.keys(record) as Array<keyof SessionRecord>) {
		if (key === "messages" || key === "sessionId" || key === "version") continue;
		const r = scrub(record[key], who, pattern);
		if (r.changed) {
			(record as unknown as Record<string, unknown>)[key] = r.value;
			changed = true;
		}
	}
	return changed;
}
