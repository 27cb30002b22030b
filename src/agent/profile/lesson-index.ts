/**
 * A community's ended lessons, one short digest each, for the admins' dashboard:
 * topic, dates, outcome, the map's nodes and, per participant, what the lesson's
 * transcript says they did (the same LessonFacts the profile records: answers,
 * first tries, per-node mastery from core/mastery.ts). A digest is a cache of
 * what the pure readers derive from one transcript, written once when the lesson
 * is recorded (learning.recordLesson) and rebuilt when it is recorded again; no
 * counter is ever incremented, so the dashboard's numbers are always sums over
 * digests that each match a transcript.
 *
 * Why here and not on the engine's save path: the engine owns the running
 * transcript and saves it every turn; a summary there would cost a write per
 * turn (the click path's store calls are budgeted). What a finished lesson
 * meant is the learning service's: it already derives it once at the lesson's
 * end, and already deletes it on forget-me and after the retention period.
 *
 * Layout (declared in store/keys.ts): `lessons:<platform>:<community>:<bucket>`,
 * an object whose fields are session ids and whose values are digests as JSON
 * text, in LESSON_INDEX_BUCKETS buckets chosen by a hash of the session id (so a
 * lesson is dropped without knowing its date, and a community is read in a
 * fixed number of gets). Each change is one atomic updateFields, followed by one
 * on `lesson-versions:<platform>:<community>` (a change count per bucket): a
 * reader keeps what it decoded per bucket and, on the next read, fetches only the
 * buckets whose count moved (one small get when nothing did).
 */

import type { Participant } from "../../core/contracts/events.ts";
import { communityOf, platformOf } from "../../core/contracts/thread-id.ts";
import type { NodeMastery } from "../../core/mastery.ts";
import { stateKeys } from "../store/keys.ts";
import type { StateStore } from "../store/state-store.ts";
import type { LessonFacts } from "./lesson-facts.ts";

/** Buckets a community's digests are spread over (a page reads them all, in parallel). */
export const LESSON_INDEX_BUCKETS = 64;
/** Communities whose decoded buckets a reader keeps (the least recently read goes first). */
const CACHED_COMMUNITIES = 8;

/** One participant of a lesson, as the digest keeps them. */
export interface DigestPerson {
	id: string;
	name?: string;
	/** Quiz answers that count (graded or "not sure"). */
	answered: number;
	/** Of those, right on the first try without help. */
	firstTry: number;
	/** Mastery per map node, in the order of LessonDigest.nodes. */
	mastery: NodeMastery[];
}

/** One ended lesson of a community. */
export interface LessonDigest {
	sessionId: string;
	topic: string;
	mode: "solo" | "group";
	startedAt: string;
	endedAt?: string;
	outcome: LessonFacts["outcome"];
	/** The latest map's nodes (id and title). */
	nodes: Array<{ id: string; label: string }>;
	/** The learner first, then the group's other participants. */
	people: DigestPerson[];
}

const MASTERY_LETTER: Record<NodeMastery, string> = { learned: "l", shaky: "s", "not-yet": "n" };
const LETTER_MASTERY: Record<string, NodeMastery> = { l: "learned", s: "shaky", n: "not-yet" };

/** The digest of a lesson from each participant's facts (the learner's first). */
export function lessonDigest(
	mode: "solo" | "group",
	facts: ReadonlyArray<{ person: Participant; facts: LessonFacts }>,
): LessonDigest | undefined {
	const first = facts[0]?.facts;
	if (!first) return undefined;
	return {
		sessionId: first.sessionId,
		topic: first.topic,
		mode,
		startedAt: first.startedAt,
		...(first.endedAt ? { endedAt: first.endedAt } : {}),
		outcome: first.outcome,
		nodes: first.nodes.map((n) => ({ id: n.id, label: n.label })),
		people: facts.map(({ person, facts: f }) => {
			const byId = new Map(f.nodes.map((n) => [n.id, n.mastery]));
			return {
				id: person.id,
				...(person.name !== undefined ? { name: person.name } : {}),
				answered: f.questionsAnswered,
				firstTry: f.firstTryCorrect,
				mastery: first.nodes.map((n) => byId.get(n.id) ?? "not-yet"),
			};
		}),
	};
}

/** The stored (compact) form: short field names, mastery as letters. */
export function encodeDigest(d: LessonDigest): string {
	return JSON.stringify({
		t: d.topic,
		m: d.mode,
		s: d.startedAt,
		...(d.endedAt ? { e: d.endedAt } : {}),
		o: d.outcome,
		n: d.nodes.map((n) => [n.id, n.label]),
		p: d.people.map((p) => [
			p.id,
			p.name ?? null,
			p.answered,
			p.firstTry,
			p.mastery.map((m) => MASTERY_LETTER[m]).join(""),
		]),
	});
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
const OUTCOMES = new Set(["completed", "ended-by-user", "ended-by-admin", "open"]);

/** A stored digest read back, checked field by field; undefined when it is not one. */
export function decodeDigest(sessionId: string, text: unknown): LessonDigest | undefined {
	if (typeof text !== "string") return undefined;
	let v: unknown;
	try {
		v = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (!isObject(v) || typeof v.t !== "string" || typeof v.s !== "string" || !Array.isArray(v.n) || !Array.isArray(v.p))
		return undefined;
	const nodes: LessonDigest["nodes"] = [];
	for (const n of v.n)
		if (Array.isArray(n) && typeof n[0] === "string" && typeof n[1] === "string") nodes.push({ id: n[0], label: n[1] });
	const people: DigestPerson[] = [];
	for (const p of v.p) {
		if (!Array.isArray(p) || typeof p[0] !== "string") continue;
		const letters = typeof p[4] === "string" ? p[4] : "";
		people.push({
			id: p[0],
			...(typeof p[1] === "string" ? { name: p[1] } : {}),
			answered: count(p[2]),
			firstTry: count(p[3]),
			mastery: nodes.map((_, i) => LETTER_MASTERY[letters[i] ?? "n"] ?? "not-yet"),
		});
	}
	const outcome = typeof v.o === "string" && OUTCOMES.has(v.o) ? (v.o as LessonDigest["outcome"]) : "open";
	return {
		sessionId,
		topic: v.t,
		mode: v.m === "group" ? "group" : "solo",
		startedAt: v.s,
		...(typeof v.e === "string" ? { endedAt: v.e } : {}),
		outcome,
		nodes,
		people,
	};
}

/** A lesson's bucket: FNV-1a over the id's UTF-16 units, the same in every process. */
export function lessonBucketOf(sessionId: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < sessionId.length; i++) {
		h ^= sessionId.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return (h >>> 0) % LESSON_INDEX_BUCKETS;
}

/** The index's community of a lesson: `<platform>:<guild or team>` (the terminal's lessons have none). */
export function indexCommunityOf(sessionId: string): string | undefined {
	const community = communityOf(sessionId);
	return community === "" ? undefined : `${platformOf(sessionId)}:${community}`;
}

/** What a reader keeps of a community: each bucket's change count and its decoded digests. */
interface CachedCommunity {
	buckets: Map<number, { version: number; digests: LessonDigest[] }>;
}

/** The lesson index on the profiles' state store. Every method may reject when the store fails. */
export class LessonIndex {
	private readonly cache = new Map<string, CachedCommunity>();

	constructor(private readonly store: StateStore) {}

	/** Count a change of a bucket (after the change is stored: a reader that saw the count sees the change). */
	private async changed(community: string, bucket: number): Promise<void> {
		await this.store.updateFields(stateKeys.lessonVersions(community), { add: { [String(bucket)]: 1 } });
	}

	/** Store (or replace) a lesson's digest; lessons without a community (the terminal) are not indexed. */
	async put(digest: LessonDigest): Promise<void> {
		const community = indexCommunityOf(digest.sessionId);
		if (!community) return;
		const key = stateKeys.lessons(community, lessonBucketOf(digest.sessionId));
		await this.store.updateFields(key, { set: { [digest.sessionId]: encodeDigest(digest) } });
		await this.changed(community, lessonBucketOf(digest.sessionId));
	}

	/** Drop a lesson (forget-me, the retention sweep). */
	async drop(sessionId: string): Promise<void> {
		const community = indexCommunityOf(sessionId);
		if (!community) return;
		const key = stateKeys.lessons(community, lessonBucketOf(sessionId));
		// An emptied bucket stays (an empty object): deleting it after seeing it empty would also delete a lesson
		// another process put into it in between (check, then act; the dashboard's several-process test lost some).
		await this.store.updateFields(key, { drop: [sessionId] });
		await this.changed(community, lessonBucketOf(sessionId));
	}

	/** Take a participant out of a lesson that stays (forget-me in a group lesson someone else started). */
	async anonymise(sessionId: string, personId: string, anonymous: string): Promise<void> {
		const community = indexCommunityOf(sessionId);
		if (!community) return;
		const key = stateKeys.lessons(community, lessonBucketOf(sessionId));
		const stored = await this.store.get(key);
		const digest = isObject(stored) ? decodeDigest(sessionId, stored[sessionId]) : undefined;
		if (!digest?.people.some((p) => p.id === personId)) return;
		digest.people = digest.people.map((p) => {
			if (p.id !== personId) return p;
			const { name: _name, ...rest } = p;
			return { ...rest, id: anonymous };
		});
		await this.store.updateFields(key, { set: { [sessionId]: encodeDigest(digest) } });
		await this.changed(community, lessonBucketOf(sessionId));
	}

	/** Every digest of a community (`<platform>:<guild or team>`), in no particular order. */
	async list(community: string): Promise<LessonDigest[]> {
		return (await this.buckets(community)).flat();
	}

	/**
	 * A community's digests as the reader keeps them, one array per stored bucket: an array is never changed
	 * once returned (a bucket read again is a new array), so a caller that compares them with the last ones by
	 * identity sees which buckets changed, here or on another process.
	 */
	async buckets(community: string): Promise<ReadonlyArray<readonly LessonDigest[]>> {
		const counts = await this.store.get(stateKeys.lessonVersions(community));
		const versionOf = (b: number): number => {
			const v = isObject(counts) ? counts[String(b)] : undefined;
			return typeof v === "number" ? v : 0;
		};
		const cached = this.cache.get(community) ?? { buckets: new Map() };
		this.cache.delete(community); // re-inserted last: the most recently read stays
		// A bucket never counted was never written (every write counts): empty, nothing to read.
		const stale = Array.from({ length: LESSON_INDEX_BUCKETS }, (_, b) => b).filter(
			(b) => versionOf(b) !== 0 && cached.buckets.get(b)?.version !== versionOf(b),
		);
		for (let b = 0; b < LESSON_INDEX_BUCKETS; b++) if (versionOf(b) === 0) cached.buckets.delete(b);
		const read = await Promise.all(stale.map((b) => this.store.get(stateKeys.lessons(community, b))));
		for (const [i, b] of stale.entries()) {
			const bucket = read[i];
			const digests: LessonDigest[] = [];
			if (isObject(bucket))
				for (const [sessionId, text] of Object.entries(bucket)) {
					const digest = decodeDigest(sessionId, text);
					if (digest) digests.push(digest);
				}
			cached.buckets.set(b, { version: versionOf(b), digests });
		}
		this.cache.set(community, cached);
		for (const oldest of this.cache.keys()) {
			if (this.cache.size <= CACHED_COMMUNITIES) break;
			this.cache.delete(oldest);
		}
		return [...cached.buckets.values()].map((b) => b.digests);
	}
}
