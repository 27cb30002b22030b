/**
 * The turn gate in the tutor: while the process's loop lags, a session's turn waits for a slot,
 * and what a learner sends meanwhile is still answered at once (recorded, then applied when the
 * turn runs). On SQLite (one process: only turns wait) and on the shared stores (the lease
 * holder's whole work waits, under its renewed lease).
 */

import { afterAll, describe, expect, it } from "vitest";
import { createTurnGate } from "../../../src/agent/engine/turn-gate.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import { gatedModel, learnerTexts, sharedBackends } from "../../fixtures/shared-backends.ts";
import { learner, tempDir } from "../helpers.ts";

const { prefix, backends } = await sharedBackends("turngate");
const dir = tempDir();
afterAll(() => dir.cleanup());
const stores: Array<[string, boolean, () => string]> = [
	["SQLite", true, () => `sqlite://${dir.path}/gate.sqlite`],
	...backends,
];

/** A busy loop that always lags: the gate lets one turn run. */
const lagging = { read: () => 100, reset: () => {}, close: () => {} };

async function eventually(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
	const end = Date.now() + ms;
	for (let i = 0; i < 1_000 && Date.now() < end; i++) {
		if (await check()) return true;
		await new Promise((r) => setTimeout(r, 20));
	}
	return check();
}

describe.each(stores)("the turn gate on %s", (name, up, url) => {
	const ns = `${prefix}_${name.slice(0, 2).toLowerCase()}`;
	it.skipIf(!up)("holds a second lesson's turn while one runs, and answers its learner at once", async () => {
		const store = await createSessionStore(url(), undefined, { namespace: ns, tablePrefix: ns });
		const { model, control } = gatedModel();
		control.holding = true;
		const turnGate = createTurnGate({ lag: lagging, load: () => 1, minLimit: 1, windowMs: 0 });
		const tutor = createTutor({ model, store, maxRetries: 0, turnGate });
		tutor.subscribe(() => undefined);
		const a = `terminal:${name.slice(0, 2)}-gate-a`;
		const b = `terminal:${name.slice(0, 2)}-gate-b`;
		try {
			await tutor.startLesson({ sessionId: a, topic: "fractions", learner, mode: "solo" });
			expect(await eventually(() => control.calls() === 1, 5_000)).toBe(true); // a's first turn holds the slot
			await tutor.startLesson({ sessionId: b, topic: "decimals", learner, mode: "solo" });
			expect(await eventually(() => turnGate.stats().waiting === 1, 5_000)).toBe(true);
			// b's learner is answered while b's turn waits (nothing of b reached the model).
			expect(await tutor.handle(b, { type: "message", text: "hello", by: learner })).toEqual({ ok: true });
			expect(control.calls()).toBe(1);
			expect(turnGate.stats()).toMatchObject({ running: 1, waiting: 1 });
			control.release();
			await tutor.idle(a);
			await tutor.idle(b);
			expect(await eventually(async () => learnerTexts(await store.get(b)).includes("hello"), 5_000)).toBe(true);
			expect(turnGate.stats().held).toBeGreaterThanOrEqual(1);
			expect(control.calls()).toBeGreaterThanOrEqual(2); // b's turns ran once the slot was free
		} finally {
			await tutor.close();
		}
	});
});
