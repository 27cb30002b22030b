/**
 * Events reach the lease holder (shared stores): several processes stood for by several tutors
 * in this process, each with its own store connection, on a private redis-server and on the
 * machine's PostgreSQL. An event at a process without the lease is answered at once and applied
 * by the holder after its turn; a holder that died mid-turn or after acknowledging an event
 * leaves the session due, and a live process re-runs the turn / applies the event; an entry a
 * dead holder applied but did not drop is not applied twice.
 */

import { describe, expect, it } from "vitest";
import { parseInboxBody } from "../../../src/agent/engine/inbox.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import type { SessionRecord, SessionStore } from "../../../src/agent/store/types.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { gatedModel, learnerTexts, sharedBackends } from "../../fixtures/shared-backends.ts";
import { learner } from "../helpers.ts";

const { prefix, backends } = await sharedBackends("inbox");

/** The roles of the transcript after the start note, e.g. ["assistant", "user", "assistant"]. */
const turns = (record: SessionRecord | undefined): string[] => (record?.messages ?? []).slice(1).map((m) => m.role);

/** Poll `check` every 50 ms until it is true or `ms` passed; returns its last value. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
	const end = Date.now() + ms;
	for (let i = 0; i < 1_000; i++) {
		if (await check()) return true;
		if (Date.now() > end) return false;
		await new Promise((done) => setTimeout(done, 50));
	}
	return false;
}

describe.each(backends)("events reach the lease holder on %s", (name, up, url) => {
	let n = 0;
	const namespace = `${prefix}_${name.slice(0, 2).toLowerCase()}`;
	const open = (): Promise<SessionStore> => createSessionStore(url(), undefined, { namespace, tablePrefix: namespace });
	const newId = () => `terminal:${name.slice(0, 2)}-${++n}`;

	it.skipIf(!up)(
		"an event at a process without the lease is answered at once, then applied by the holder after its turn",
		async () => {
			const [s1, s2, reader] = await Promise.all([open(), open(), open()]);
			const { model, control } = gatedModel();
			const t1 = createTutor({ model, store: s1, maxRetries: 0 });
			const t2 = createTutor({ model, store: s2, maxRetries: 0 });
			const events: TutorEvent[] = [];
			t1.subscribe((e) => void events.push(e));
			t2.subscribe((e) => void events.push(e));
			try {
				const sessionId = newId();
				await t1.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
				await t1.idle(sessionId);
				control.holding = true;
				expect(await t1.handle(sessionId, { type: "message", text: "first", by: learner })).toEqual({ ok: true });
				// t1 holds the lease through a model call that does not end until the gate opens: t2 answers anyway.
				expect(await eventually(async () => learnerTexts(await reader.get(sessionId)).includes("first"), 5_000)).toBe(
					true,
				);
				expect(await t2.handle(sessionId, { type: "message", text: "second", by: learner })).toEqual({ ok: true });
				expect(learnerTexts(await reader.get(sessionId))).toEqual(["first"]);
				control.release();
				await Promise.all([t1.idle(sessionId), t2.idle(sessionId)]);
				const stored = await reader.get(sessionId);
				expect(learnerTexts(stored)).toEqual(["first", "second"]);
				// One turn per message, in order; no refusal anywhere.
				expect(turns(stored)).toEqual(["assistant", "user", "assistant", "user", "assistant"]);
				expect(events.filter((e) => e.type === "error")).toEqual([]);
				// The inbox carried only the message t2 received (the kick and the first ran under t1's own lease).
				expect(stored?.inbox).toBe(1);
				expect(await s1.inbox?.count(sessionId, 0)).toBe(0); // applied entries are dropped
			} finally {
				control.release();
				await Promise.all([t1.close(), t2.close(), reader.close()]);
			}
		},
	);

	it.skipIf(!up)("a holder that dies mid-turn: a live process re-runs the turn once the lease expires", async () => {
		const [s1, dead, reader] = await Promise.all([open(), open(), open()]);
		const { model, control } = gatedModel();
		const calls = control.calls;
		const tutor = createTutor({ model, store: s1, maxRetries: 0, leaseTtlMs: 600 });
		const events: TutorEvent[] = [];
		tutor.subscribe((e) => void events.push(e));
		try {
			const sessionId = newId();
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			const before = calls();
			// Another process takes the lease, records a learner message with its turn open, and dies (kill -9).
			const lease = await dead.acquire(sessionId, 600);
			const copy = await dead.get(sessionId);
			if (!lease || !copy) throw new Error("no lease");
			copy.messages.push({
				id: "m-dead",
				role: "user",
				metadata: { kind: "learner", by: learner },
				parts: [{ type: "text", text: "before the crash" }],
			});
			copy.turnOpen = true;
			await dead.set(copy, { fence: lease.fence });
			// The watcher (every 2 s) finds it due after the lease's 600 ms and re-runs the turn.
			const rerun = await eventually(async () => (await reader.get(sessionId))?.turnOpen === false, 10_000);
			expect(rerun).toBe(true);
			await tutor.idle(sessionId);
			const stored = await reader.get(sessionId);
			expect(turns(stored)).toEqual(["assistant", "user", "assistant"]);
			expect(calls()).toBe(before + 1);
			// The re-run turn's reply is posted by the taker.
			expect(events.some((e) => e.type === "text" && e.text === `Reply ${before + 1}.`)).toBe(true);
			expect(events.filter((e) => e.type === "error")).toEqual([]);
			// The dead holder's lease is gone for good: its fence is refused.
			await expect(dead.set(copy, { fence: lease.fence })).rejects.toMatchObject({ code: "store-fenced" });
		} finally {
			await Promise.all([tutor.close(), dead.close(), reader.close()]);
		}
	});

	it.skipIf(!up)("an append that carries a version lands only while the session is at it", async () => {
		const [s1, s2] = await Promise.all([open(), open()]);
		const { model } = gatedModel();
		const tutor = createTutor({ model, store: s1, maxRetries: 0 });
		tutor.subscribe(() => undefined);
		try {
			const sessionId = newId();
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			const inbox = s2.inbox;
			const stored = await s2.get(sessionId);
			if (!inbox || stored?.version === undefined) throw new Error("no inbox or no version");
			const body = JSON.stringify({ kind: "kick" });
			expect(await inbox.push(sessionId, body, stored.version + 1)).toBe(0);
			expect(await inbox.read(sessionId, 0, 10)).toEqual([]);
			const seq = await inbox.push(sessionId, body, stored.version);
			expect(seq).toBeGreaterThan(0);
			expect((await inbox.read(sessionId, 0, 10)).map((e) => e.seq)).toEqual([seq]);
			expect(await inbox.push(`${sessionId}-none`, body, 1)).toBe(0); // no such session: nothing appended
		} finally {
			await Promise.all([tutor.close(), s2.close()]);
		}
	});

	it.skipIf(!up)(
		"a deleted session (forget-me) takes its inbox with it, and nothing is appended for it afterwards",
		async () => {
			const [s1, s2] = await Promise.all([open(), open()]);
			const { model } = gatedModel();
			const t1 = createTutor({ model, store: s1, maxRetries: 0 });
			const t2 = createTutor({ model, store: s2, maxRetries: 0 });
			t1.subscribe(() => undefined);
			t2.subscribe(() => undefined);
			try {
				const sessionId = newId();
				await t1.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
				await t1.idle(sessionId);
				expect(await t2.getSession(sessionId)).toBeDefined(); // the other process has a copy in memory
				expect(await s1.delete(sessionId)).toBe(true);
				// The other process still knows the lesson: the learner's message is refused, not queued for nobody.
				const typed = await t2.handle(sessionId, { type: "message", text: "still here?", by: learner });
				expect(typed.ok).toBe(false);
				const body = JSON.stringify({ kind: "kick" });
				expect(await s2.inbox?.push(sessionId, body)).toBe(0);
				expect(await s2.inbox?.read(sessionId, 0, 10)).toEqual([]);
			} finally {
				await Promise.all([t1.close(), t2.close()]);
			}
		},
	);

	it.skipIf(!up)(
		"an event checked against a copy another process moved is checked again against the stored one",
		async () => {
			const [s1, s2] = await Promise.all([open(), open()]);
			const { model } = gatedModel();
			const t1 = createTutor({ model, store: s1, maxRetries: 0 });
			const t2 = createTutor({ model, store: s2, maxRetries: 0 });
			t1.subscribe(() => undefined);
			t2.subscribe(() => undefined);
			try {
				const sessionId = newId();
				await t1.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
				await t1.idle(sessionId);
				// t2 loads its copy; then t1 ends the lesson: t2's copy still says it is open.
				expect((await t2.getSession(sessionId))?.phase).not.toBe("ended");
				expect(await t1.handle(sessionId, { type: "end", by: learner })).toMatchObject({ ok: true });
				await t1.idle(sessionId);
				// The append carried t2's version: refused by the store, re-read, and the event refused as the stored copy says.
				expect(await t2.handle(sessionId, { type: "message", text: "too late", by: learner })).toMatchObject({
					ok: false,
				});
				expect(learnerTexts(await s1.get(sessionId))).not.toContain("too late");
			} finally {
				await Promise.all([t1.close(), t2.close()]);
			}
		},
	);

	it.skipIf(!up)("an event acknowledged by a process that died before applying it is applied by another", async () => {
		const [s1, dead, reader] = await Promise.all([open(), open(), open()]);
		const { model } = gatedModel();
		const tutor = createTutor({ model, store: s1, maxRetries: 0, leaseTtlMs: 600 });
		tutor.subscribe(() => undefined);
		try {
			const sessionId = newId();
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			// What a process does in handle() before it dies: the entry is in the inbox, nobody holds the lease.
			const body = {
				kind: "event",
				event: { type: "message", text: "orphan", by: learner },
				at: "2026-12-01T00:00:00Z",
			};
			await dead.inbox?.push(sessionId, JSON.stringify(body));
			expect(await eventually(async () => learnerTexts(await reader.get(sessionId)).includes("orphan"), 10_000)).toBe(
				true,
			);
			await tutor.idle(sessionId);
			expect(await eventually(async () => (await reader.get(sessionId))?.turnOpen === false, 5_000)).toBe(true);
			expect(turns(await reader.get(sessionId))).toEqual(["assistant", "user", "assistant"]);
		} finally {
			await Promise.all([tutor.close(), dead.close(), reader.close()]);
		}
	});

	it.skipIf(!up)("an entry its dead holder applied but did not drop is not applied again", async () => {
		const [s1, dead, reader] = await Promise.all([open(), open(), open()]);
		const { model, control } = gatedModel();
		const calls = control.calls;
		const tutor = createTutor({ model, store: s1, maxRetries: 0, leaseTtlMs: 600 });
		tutor.subscribe(() => undefined);
		try {
			const sessionId = newId();
			await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await tutor.idle(sessionId);
			const before = calls();
			const inbox = dead.inbox;
			const lease = await dead.acquire(sessionId, 600);
			if (!inbox || !lease) throw new Error("no inbox");
			const body = { kind: "event", event: { type: "message", text: "once", by: learner }, at: "2026-12-01T00:00:00Z" };
			const seq = await inbox.push(sessionId, JSON.stringify(body));
			// The holder applies it and saves (its turn answered), then dies before dropping the entry.
			const [entry] = await inbox.read(sessionId, 0, 10);
			expect(entry?.seq).toBe(seq);
			expect(parseInboxBody(entry?.body ?? "")).toMatchObject({ kind: "event" });
			const copy = await dead.get(sessionId);
			if (!copy) throw new Error("no copy");
			copy.messages.push(
				{ id: "u", role: "user", metadata: { kind: "learner", by: learner }, parts: [{ type: "text", text: "once" }] },
				{ id: "a", role: "assistant", parts: [{ type: "text", text: "Answered before the crash." }] },
			);
			copy.inbox = seq;
			await dead.set(copy, { fence: lease.fence });
			// Due after the lease expires (the inbox holds an entry): the taker skips it and drops it.
			expect(await eventually(async () => (await inbox.count(sessionId, 0)) === 0, 10_000)).toBe(true);
			await tutor.idle(sessionId);
			expect(learnerTexts(await reader.get(sessionId))).toEqual(["once"]);
			expect(calls()).toBe(before);
		} finally {
			await Promise.all([tutor.close(), dead.close(), reader.close()]);
		}
	});
	it.skipIf(!up)("forget-me waits for a turn running in another process, then rewrites under the lease", async () => {
		const [s1, s2, reader] = await Promise.all([open(), open(), open()]);
		const { model, control } = gatedModel();
		const t1 = createTutor({ model, store: s1, maxRetries: 0 });
		const t2 = createTutor({ model, store: s2, maxRetries: 0 });
		const bob = { id: "bob", name: "Bob" };
		try {
			const sessionId = newId();
			await t1.startLesson({ sessionId, topic: "fractions", learner, mode: "group" });
			await t1.idle(sessionId);
			await t1.handle(sessionId, { type: "message", text: "Bob here", by: bob });
			await t1.idle(sessionId);
			control.holding = true;
			await t1.handle(sessionId, { type: "message", text: "slow one", by: learner });
			expect(
				await eventually(
					async () => learnerTexts(await reader.get(sessionId)).some((t) => t.includes("slow one")),
					5_000,
				),
			).toBe(true);
			let forgot: number | undefined;
			if (!t2.forgetParticipant) throw new Error("this tutor cannot forget");
			const forgetting = t2.forgetParticipant(bob).then((n) => {
				forgot = n;
			});
			await new Promise((done) => setTimeout(done, 300));
			expect(forgot).toBeUndefined(); // the turn holds the lease
			control.release();
			await forgetting;
			await t1.idle(sessionId);
			expect(forgot).toBe(1);
			const stored = await reader.get(sessionId);
			expect(JSON.stringify(stored?.messages)).not.toContain("Bob");
			// The running turn was not lost to the rewrite: its reply is there, after the learner's message.
			expect(turns(stored).slice(-2)).toEqual(["user", "assistant"]);
			expect(stored?.turnOpen).toBe(false);
		} finally {
			control.release();
			await Promise.all([t1.close(), t2.close(), reader.close()]);
		}
	});
	it.skipIf(!up)("a holder paused past its lease re-reads the session before it admits an event", async () => {
		const [s1, s2, reader] = await Promise.all([open(), open(), open()]);
		// t1's lease renewals hang (the process is paused, or cut off from the store) until `wake`.
		let wake!: (ok: boolean) => void;
		const woken = new Promise<boolean>((done) => {
			wake = done;
		});
		const paused: SessionStore = {
			...s1,
			acquire: async (id, ttl) => {
				const lease = await s1.acquire(id, ttl);
				return lease && { ...lease, renew: () => woken, release: (work) => lease.release(work) };
			},
		};
		const held = gatedModel();
		const t1 = createTutor({ model: held.model, store: paused, maxRetries: 0, leaseTtlMs: 600 });
		const t2 = createTutor({ model: gatedModel().model, store: s2, maxRetries: 0, leaseTtlMs: 600 });
		t1.subscribe(() => undefined);
		t2.subscribe(() => undefined);
		try {
			const sessionId = newId();
			await t1.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
			await t1.idle(sessionId);
			held.control.holding = true;
			expect(await t1.handle(sessionId, { type: "message", text: "first", by: learner })).toEqual({ ok: true });
			// t2's watcher takes the session once t1's lease expired, re-runs the cut-off turn, and the lesson ends.
			expect(await eventually(async () => (await reader.get(sessionId))?.turnOpen === false, 10_000)).toBe(true);
			expect(await t2.handle(sessionId, { type: "end", by: learner })).toEqual({ ok: true });
			await t2.idle(sessionId);
			expect((await reader.get(sessionId))?.ended).toBeDefined();
			// t1 still runs its turn and has heard nothing; its copy says the lesson is open. It must not trust it.
			const late = await t1.handle(sessionId, { type: "message", text: "late", by: learner });
			expect(late).toMatchObject({ ok: false, code: "ended" });
			expect(learnerTexts(await reader.get(sessionId))).not.toContain("late");
		} finally {
			wake(false);
			held.control.release();
			await Promise.all([t1.close(), t2.close(), reader.close()]);
		}
	});

	it.skipIf(!up)(
		"the lease is kept until the sinks' posts are out (a crash while posting leaves them unpublished)",
		async () => {
			const [s1, other, reader] = await Promise.all([open(), open(), open()]);
			const { model } = gatedModel();
			const tutor = createTutor({ model, store: s1, maxRetries: 0 });
			let posted!: () => void;
			const posting = new Promise<void>((done) => {
				posted = done;
			});
			tutor.subscribe(() => undefined, { drained: () => posting });
			try {
				const sessionId = newId();
				await tutor.startLesson({ sessionId, topic: "fractions", learner, mode: "solo" });
				// The turn is saved and closed, but its posts are not out: the lease stays with this process.
				expect(await eventually(async () => turns(await reader.get(sessionId)).length === 1, 5_000)).toBe(true);
				expect(await other.acquire(sessionId, 1_000)).toBeUndefined();
				posted();
				await tutor.idle(sessionId);
				const lease = await other.acquire(sessionId, 1_000);
				expect(lease).toBeDefined();
				await lease?.release();
			} finally {
				posted();
				await Promise.all([tutor.close(), other.close(), reader.close()]);
			}
		},
	);
});

describe("inbox entries are parsed, not cast", () => {
	it("reads events, kicks and tallies; refuses anything else", () => {
		expect(parseInboxBody('{"kind":"kick"}')).toEqual({ kind: "kick" });
		expect(parseInboxBody('{"kind":"tally","toolCallId":"q1"}')).toEqual({ kind: "tally", toolCallId: "q1" });
		expect(parseInboxBody('{"kind":"event","event":{"type":"end","by":{"id":"u"}},"at":"t"}')).toMatchObject({
			kind: "event",
		});
		for (const bad of ["", "null", "[]", '{"kind":"tally"}', '{"kind":"event","event":1,"at":"t"}', '{"kind":"x"}'])
			expect(parseInboxBody(bad)).toBeUndefined();
	});
});
