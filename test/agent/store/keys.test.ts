/**
 * The state stores' schema holds: every key a lesson with cost caps, a review, a reminder and a
 * forget-me write (on the controller's, the profiles' and the pictures' stores) starts with a
 * prefix declared in src/agent/store/keys.ts, and every declared prefix has its builder.
 */

import { readFileSync } from "node:fs";
import Keyv from "keyv";
import { afterAll, describe, expect, it } from "vitest";
import { createLessonController } from "../../../src/adapters/lesson/controller.ts";
import { createBudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import type { PlatformPort } from "../../../src/adapters/lesson/port.ts";
import {
	createLearning,
	createMemoryStateStore,
	createPictureStore,
	declaredPrefixOf,
	STATE_KEYS,
	type StateStore,
	stateKeys,
} from "../../../src/agent/index.ts";
import { sessionStoreOnKeyv } from "../../../src/agent/store/session-store.ts";
import { createTutor } from "../../../src/agent/tutor.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { recordingActor, recordingPort } from "../../adapters/lesson/recording-port.ts";
import { fractionsLesson } from "../../fixtures/lesson-script.ts";
import { answerFractionsLesson, testClock } from "../../fixtures/profile-stack.ts";

/** A state store that records every key written or deleted through it. */
function recordingState(inner: StateStore, keys: Set<string>): StateStore {
	const seen = (key: string) => {
		keys.add(key);
		return key;
	};
	return {
		...inner,
		get: (key) => inner.get(key),
		set: (key, value, ttlMs) => inner.set(seen(key), value, ttlMs),
		setIfAbsent: (key, value, ttlMs) => inner.setIfAbsent(seen(key), value, ttlMs),
		increment: (key, by, ttlMs) => inner.increment(seen(key), by, ttlMs),
		delete: (key) => inner.delete(seen(key)),
		close: () => inner.close(),
	};
}

/** A recording port whose thread ids carry the community, as Discord's and Slack's do (`rec:<community>:<n>`). */
function communityPort(): PlatformPort<string> {
	const base = recordingPort();
	let threads = 0;
	return {
		...base,
		decodeThreadId: (threadId) => (threadId.startsWith("rec:") ? threadId.slice(4) : undefined),
		async openThread(where) {
			return { ok: true, threadId: `rec:${where.community}:t${++threads}` };
		},
	};
}

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
	for (const stop of stops) await stop();
});

describe("state store keys", () => {
	it("declares every prefix once with an owner and a TTL, and each builder writes under its own prefix", () => {
		const built = [
			stateKeys.profile("discord:u1"),
			stateKeys.reviews("discord:u1"),
			stateKeys.reviewItems("discord:u1"),
			stateKeys.members("G1"),
			stateKeys.reportRows("G1"),
			stateKeys.communities(),
			stateKeys.reminders(),
			stateKeys.reminded("discord:u1", "2026-03-01"),
			stateKeys.retention("G1"),
			stateKeys.picture("discord:G1:t1", "ab"),
			stateKeys.pictureBytesOfLesson("discord:G1:t1", 3),
			stateKeys.pictureBytesOfLearner("discord:u1", 3),
			stateKeys.material("discord:G1:t1"),
			stateKeys.library("G1"),
			stateKeys.libraryItem("G1", "chapter 8"),
			stateKeys.libraries(),
			stateKeys.card("t1", "q1"),
			stateKeys.intro("t1"),
			stateKeys.latest("G1:C1"),
			stateKeys.latest("G1:C1", "u1"),
			stateKeys.rules("G1"),
			stateKeys.count("G1", "u1", "2026-03-01"),
			stateKeys.review("t1"),
			stateKeys.seen("interaction:1"),
			stateKeys.forgotten("0f"),
			stateKeys.spend("G1", "2026-03-01"),
			stateKeys.spend("G1", "2026-03-01", "u1"),
			stateKeys.usage("G1", "2026-03"),
			stateKeys.lessons("discord:G1", 3),
			stateKeys.lessonVersions("discord:G1"),
			stateKeys.dashboardLink("n1"),
			stateKeys.dashboardSession("h1"),
		];
		expect(new Set(built.map((k) => declaredPrefixOf(k))).size).toBe(Object.keys(STATE_KEYS).length);
		expect(built.every((k) => declaredPrefixOf(k) !== undefined)).toBe(true);
		for (const spec of Object.values(STATE_KEYS)) expect(spec.owner).toMatch(/^(agent|adapters|dashboard)\/.+\.ts$/);
		expect(declaredPrefixOf("picture-bytes:lesson:x:1")).toBe("picture-bytes:");
		expect(declaredPrefixOf("reminders-old")).toBeUndefined();
		expect(declaredPrefixOf("claims:t1")).toBeUndefined();
		// docs/architecture.md lists them (its "State store keys" section).
		const doc = readFileSync(new URL("../../../docs/architecture.md", import.meta.url), "utf8");
		for (const prefix of Object.keys(STATE_KEYS)) expect(doc).toContain(`\`${prefix}\``);
	});

	it("a lesson with caps, a review, a reminder and a forget-me write only declared keys", async () => {
		const written = new Set<string>();
		const clock = testClock();
		const sessions = sessionStoreOnKeyv(new Keyv());
		const profiles = recordingState(createMemoryStateStore(), written);
		const pictures = createPictureStore(recordingState(createMemoryStateStore(), written));
		const learning = createLearning({ state: profiles, sessions, now: clock.now, pictures });
		const budgets = createBudgetRouter();
		const model = scriptedModel([
			...fractionsLesson({ greeting: "Hi!", predictOptions: ["3", "6", "9"], closing: "Well done!" }),
			{ text: "Welcome back!" },
		]);
		const tutor = createTutor({ model, store: sessions, maxRetries: 0, pictures, budget: budgets.budget });
		const controller = createLessonController({
			tutor,
			renderer: stubRenderer(undefined),
			port: communityPort(),
			logger: silentLogger,
			state: recordingState(createMemoryStateStore(), written),
			budgets,
			learning,
			ruleDefaults: { memberTokensPerDay: 1_000_000, serverTokensPerDay: 10_000_000, lessonsPerDay: 5 },
		});
		controller.attach();
		stops.push(async () => {
			await controller.stop({ waitMs: 2_000 });
			await tutor.close();
		});
		const ada = { id: "u1", name: "Ada" };
		const place = { community: "G1", channelId: "C1" };

		const started = await controller.start(recordingActor(ada), place, { topic: "fractions" });
		if (!started.ok) throw new Error(started.message);
		await answerFractionsLesson(tutor, started.threadId, ada);
		await controller.end(recordingActor(ada), started.threadId);
		await controller.flush(2_000);
		for (let i = 0; i < 400 && !(await learning.profile(`rec:${ada.id}`))?.lessons.length; i++)
			await new Promise((done) => setTimeout(done, 10));

		const flows = controller.profile;
		if (!flows) throw new Error("no profile flows");
		await flows.remind(recordingActor(ada), place, true);
		clock.advanceDays(30);
		await flows.sendReminders();
		await flows.review.start(recordingActor(ada), place);
		await flows.retention(recordingActor({ id: "admin" }, true), "G1", 90);
		await flows.forget(recordingActor(ada), "G1");
		await controller.flush(2_000);

		// The flows ran: the keys of each owner were written (so an undeclared one would have been seen).
		const prefixes = new Set([...written].map((k) => declaredPrefixOf(k) ?? `UNDECLARED ${k}`));
		for (const p of ["profile:", "review-items:", "report-rows:", "members:", "reminders", "reminded:", "retention:"])
			expect(prefixes).toContain(p);
		for (const p of ["intro:", "latest:", "count:", "review:", "forgotten:", "usage:"]) expect(prefixes).toContain(p);
		expect([...written].filter((k) => declaredPrefixOf(k) === undefined)).toEqual([]);
	});
});
