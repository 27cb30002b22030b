/**
 * Shared stores: a question whose holders died posting it is re-posted by the process that takes
 * the session over, bounded like a restart's: as text after one offer that died, not at all after
 * two (the learner is told instead); a turn cut off MAX_RERUNS times gets the notice, not a re-run.
 */

import { describe, expect, it } from "vitest";
import { MAX_RERUNS } from "../../../src/agent/engine/recovery.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import type { SessionRecord, SessionStore } from "../../../src/agent/store/types.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { t } from "../../../src/i18n/index.ts";
import { sharedBackends } from "../../fixtures/shared-backends.ts";
import { learner, probeQuiz, scriptedModel } from "../helpers.ts";

const { prefix, backends } = await sharedBackends("reposts");

/** Poll `check` every 50 ms until it is true or `ms` passed; returns its last value. */
async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
	const end = Date.now() + ms;
	for (let i = 0; i < 1_000; i++) {
		if (await check()) return true;
		if (Date.now() > end) return false;
		await new Promise((done) => setTimeout(done, 50));
	}
	return false;
}

describe.each(backends)("re-posts after a takeover on %s", (name, up, url) => {
	let n = 0;
	const namespace = `${prefix}_${name.slice(0, 2).toLowerCase()}`;
	const open = (): Promise<SessionStore> => createSessionStore(url(), undefined, { namespace, tablePrefix: namespace });
	const newId = () => `terminal:rp-${name.slice(0, 2)}-${++n}`;

	/**
	 * A lesson whose quiz q1 is open, then a holder that takes the lease, leaves `tweak`'s change on
	 * disk and dies; a live process (`events` its posts) takes it over once the lease expires.
	 */
	async function takenOver(
		tweak: (record: SessionRecord) => void,
	): Promise<{ events: TutorEvent[]; stored: () => Promise<SessionRecord | undefined> }> {
		const [s1, dead, reader] = await Promise.all([open(), open(), open()]);
		const model = scriptedModel([{ calls: [{ name: "quiz", input: probeQuiz, id: "q1" }] }]);
		const tutor = createTutor({ model, store: s1, maxRetries: 0, leaseTtlMs: 600 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		const sessionId = newId();
		try {
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			expect(events.filter((e) => e.type === "quiz")).toHaveLength(1);
			events.length = 0;
			const lease = await dead.acquire(sessionId, 600);
			const copy = await dead.get(sessionId);
			if (!lease || !copy) throw new Error("no lease");
			tweak(copy);
			await dead.set(copy, { fence: lease.fence });
			// The watcher (every 2 s) finds it due after the lease's 600 ms.
			const done = await eventually(async () => {
				const r = await reader.get(sessionId);
				return r?.unpublished === undefined && r?.turnOpen !== true && events.length > 0;
			}, 15_000);
			if (!done) console.log(JSON.stringify({ events, r: await reader.get(sessionId) }).slice(0, 3000));
			expect(done).toBe(true);
			await tutor.idle(sessionId);
			const final = await reader.get(sessionId);
			return { events: [...events], stored: async () => final };
		} finally {
			await Promise.all([tutor.close(), dead.close(), reader.close()]);
		}
	}

	it.skipIf(!up)(
		"a question offered once already, by a holder that died, is posted as text",
		{ timeout: 60_000 },
		async () => {
			const { events, stored } = await takenOver((record) => {
				record.unpublished = ["q1"];
				record.reposted = { ids: ["q1"], times: 1 };
			});
			expect(events.filter((e) => e.type === "quiz")).toMatchObject([{ toolCallId: "q1", replay: true, plain: true }]);
			expect(events.filter((e) => e.type === "error")).toEqual([]);
			expect((await stored())?.reposted).toBeUndefined();
		},
	);

	it.skipIf(!up)(
		"a question offered twice already is not offered again: the learner is told",
		{ timeout: 60_000 },
		async () => {
			const { events, stored } = await takenOver((record) => {
				record.unpublished = ["q1"];
				record.reposted = { ids: ["q1"], times: 2 };
			});
			expect(events.filter((e) => e.type === "quiz")).toEqual([]);
			expect(events.filter((e) => e.type === "error")).toMatchObject([
				{ code: "cut-off", message: t("en", "engine.cutOff") },
			]);
			expect((await stored())?.unpublished).toBeUndefined();
		},
	);

	it.skipIf(!up)(
		"a turn cut off MAX_RERUNS times in a row is not run again: the learner is told",
		{ timeout: 60_000 },
		async () => {
			const { events } = await takenOver((record) => {
				// The quiz answered, the turn after it cut off (a new message object: the store writes replaced ones only).
				record.messages = record.messages.map((m) => ({
					...m,
					parts: m.parts.map((p) =>
						"toolCallId" in p && p.toolCallId === "q1"
							? ({ ...p, state: "output-available", output: { answer: "3/4", correct: true } } as typeof p)
							: p,
					),
				}));
				record.turnOpen = true;
				record.reruns = MAX_RERUNS;
			});
			expect(events.filter((e) => e.type === "error")).toMatchObject([{ code: "cut-off" }]);
			expect(events.filter((e) => e.type === "text" || e.type === "quiz")).toEqual([]);
		},
	);
});
