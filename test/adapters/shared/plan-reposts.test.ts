/**
 * Plan reposts: the first picture is posted, the same picture is not posted
 * again (across a restart too, via the key store), a new one is; a failed post
 * leaves the key unchanged so the next event tries again; store and renderer
 * failures never throw.
 */

import { describe, expect, it } from "vitest";
import { createPlanReposter, type PlanKeyStore } from "../../../src/adapters/shared/plan-reposts.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { DerivedPlanStatuses, PlanTree } from "../../../src/core/contracts/plan.ts";
import type { PlanPicture } from "../../../src/render/index.ts";
import { stubRenderer } from "./stub-renderer.ts";

type PlanEvent = Extract<TutorEvent, { type: "plan" }>;

const tree: PlanTree = {
	nodes: [
		{ id: "a", title: "A" },
		{ id: "b", title: "B" },
	],
	edges: [{ from: "a", to: "b" }],
	version: 1,
};
const at = (current: string | null): PlanEvent => ({
	type: "plan",
	sessionId: "s1",
	tree,
	statuses: { current, visited: new Set<string>() } satisfies DerivedPlanStatuses,
	reason: current ? "moved" : "init",
});

function memoryStore(): PlanKeyStore & { saved: Map<string, string> } {
	const saved = new Map<string, string>();
	return { saved, load: async (id) => saved.get(id), save: async (id, key) => void saved.set(id, key) };
}

describe("createPlanReposter", () => {
	it("posts a new picture, skips the same one, posts when the current node moves", async () => {
		const store = memoryStore();
		const reposter = createPlanReposter({
			renderer: stubRenderer(Buffer.from("png")),
			store,
			logger: silentLogger,
			name: "t",
		});
		const posted: PlanPicture[] = [];
		const post = async (p: PlanPicture) => {
			posted.push(p);
			return true;
		};
		expect(await reposter.onPlan(at(null), post)).toBe("posted");
		expect(await reposter.onPlan(at(null), post)).toBe("unchanged");
		expect(await reposter.onPlan(at("a"), post)).toBe("posted");
		expect(posted.map((p) => p.key)).toEqual(["1:-", "1:a"]);
		expect(store.saved.get("s1")).toBe("1:a");
	});

	it("remembers across a restart through the store", async () => {
		const store = memoryStore();
		store.saved.set("s1", "1:a");
		const reposter = createPlanReposter({ renderer: stubRenderer(undefined), store, logger: silentLogger, name: "t" });
		let calls = 0;
		expect(
			await reposter.onPlan(at("a"), async () => {
				calls++;
				return true;
			}),
		).toBe("unchanged");
		expect(calls).toBe(0);
	});

	it("keeps the old key when nothing could be posted, so the next event retries", async () => {
		const store = memoryStore();
		const reposter = createPlanReposter({ renderer: stubRenderer(undefined), store, logger: silentLogger, name: "t" });
		expect(await reposter.onPlan(at("a"), async () => false)).toBe("failed");
		expect(store.saved.has("s1")).toBe(false);
		expect(await reposter.onPlan(at("a"), async () => true)).toBe("posted");
	});

	it("never throws: a failing store load, save or post is logged and survived", async () => {
		const store: PlanKeyStore = {
			load: async () => {
				throw new Error("store down");
			},
			save: async () => {
				throw new Error("store down");
			},
		};
		const reposter = createPlanReposter({ renderer: stubRenderer(undefined), store, logger: silentLogger, name: "t" });
		expect(await reposter.onPlan(at("a"), async () => true)).toBe("posted");
		expect(await reposter.onPlan(at("a"), async () => true)).toBe("unchanged"); // remembered in memory
		expect(
			await reposter.onPlan(at("b"), async () => {
				throw new Error("network");
			}),
		).toBe("failed");
	});
});
