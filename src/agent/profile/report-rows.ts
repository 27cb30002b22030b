/**
 * The admin report's rows, kept ready per community: a scored-items collection
 * `report-rows:<community>` (store/scored-items.ts) with one item per member, holding that
 * member's lessons there as compact rows (numbers, ids and dates only). The report reads the
 * collection in one query or script (about a tenth of the members' whole profiles' bytes);
 * whatever changes a member's lessons there (a lesson recorded, a review graded, retention,
 * forget-me) writes that one member's item. Members recorded by earlier versions have no item:
 * the first report reads their profiles in one read and writes their items.
 */

import { stateKeys } from "../store/keys.ts";
import type { ScoredItems } from "../store/scored-items.ts";
import type { LearnerProfile, ProfileStore } from "./profile-store.ts";

/** One row of the admin report: a member's lesson, numbers only. */
export interface ReportRow {
	member: string;
	sessionId: string;
	topic: string;
	startedAt: string;
	endedAt: string;
	questionsAnswered: number;
	firstTryAccuracy: number;
	nodesLearned: number;
	reviewsDone: number;
}

/** A stored row: [sessionId, topic, startedAt, endedAt, questionsAnswered, firstTryAccuracy, nodesLearned, reviewsDone]. */
type StoredRow = [string, string, string, string, number, number, number, number];

/** A member's item: their id and their rows in the community. */
interface StoredMember {
	member: string;
	rows: StoredRow[];
}

/** A member's report rows in `community`, in lesson order. */
export function reportRowsOf(profile: LearnerProfile, community: string): ReportRow[] {
	return profile.lessons
		.filter((l) => l.community === community)
		.map((l) => ({
			member: profile.learner.id,
			sessionId: l.sessionId,
			topic: l.topic,
			startedAt: l.startedAt,
			endedAt: l.endedAt ?? "",
			questionsAnswered: l.questionsAnswered,
			firstTryAccuracy: l.questionsAnswered === 0 ? 0 : l.firstTryCorrect / l.questionsAnswered,
			nodesLearned: l.nodes.filter((n) => n.mastery === "learned").length,
			reviewsDone: l.reviews,
		}));
}

const str = (v: unknown): v is string => typeof v === "string";
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A stored member item read back (field by field); undefined when it is not one. */
function parseMember(v: unknown): ReportRow[] | undefined {
	if (typeof v !== "object" || v === null || !("member" in v) || !("rows" in v)) return undefined;
	const { member, rows } = v as { member: unknown; rows: unknown };
	if (!str(member) || !Array.isArray(rows)) return undefined;
	const out: ReportRow[] = [];
	for (const r of rows) {
		if (!Array.isArray(r) || !str(r[0]) || !str(r[1]) || !str(r[2]) || !str(r[3])) continue;
		out.push({
			member,
			sessionId: r[0],
			topic: r[1],
			startedAt: r[2],
			endedAt: r[3],
			questionsAnswered: num(r[4]),
			firstTryAccuracy: num(r[5]),
			nodesLearned: num(r[6]),
			reviewsDone: num(r[7]),
		});
	}
	return out;
}

/** Write (or, with no lesson there left, remove) the member's item in each of `communities`. */
export async function saveReportRows(
	index: ScoredItems,
	profile: LearnerProfile,
	communities: Iterable<string>,
): Promise<void> {
	for (const community of new Set(communities)) {
		if (community === "") continue;
		const rows = reportRowsOf(profile, community);
		const collection = stateKeys.reportRows(community);
		if (rows.length === 0) await index.remove(collection, [profile.key]);
		else {
			const value: StoredMember = {
				member: profile.learner.id,
				rows: rows.map((r) => [
					r.sessionId,
					r.topic,
					r.startedAt,
					r.endedAt,
					r.questionsAnswered,
					r.firstTryAccuracy,
					r.nodesLearned,
					r.reviewsDone,
				]),
			};
			await index.put(collection, { id: profile.key, score: 0, value });
		}
	}
}

/** Remove the member's item in each of `communities`. */
export async function removeReportRows(index: ScoredItems, key: string, communities: Iterable<string>): Promise<void> {
	for (const community of new Set(communities))
		if (community !== "") await index.remove(stateKeys.reportRows(community), [key]);
}

/**
 * A community's report: its members' rows in member (the members list's) then lesson order. One read of the
 * collection; members without an item (recorded by an earlier version) are read from their profiles in one
 * more read, and their items written.
 */
export async function readReport(store: ProfileStore, index: ScoredItems, community: string): Promise<ReportRow[]> {
	const [members, stored] = await Promise.all([
		store.list(stateKeys.members(community)),
		index.all(stateKeys.reportRows(community)),
	]);
	const byMember = new Map<string, ReportRow[]>();
	for (const item of stored) {
		const rows = parseMember(item.value);
		if (rows) byMember.set(item.id, rows);
	}
	const missing = members.filter((key) => !byMember.has(key));
	for (const profile of await store.profiles(missing)) {
		byMember.set(profile.key, reportRowsOf(profile, community));
		await saveReportRows(index, profile, [community]);
	}
	return members.flatMap((key) => byMember.get(key) ?? []);
}
