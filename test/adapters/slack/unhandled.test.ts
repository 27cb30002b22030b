/**
 * Interactive payloads no listener takes are acknowledged at once: Bolt would answer 404 after its
 * 3-second timeout (Slack shows the person an error by then). A view_closed, a shortcut, a button of an
 * id we do not know, a view of another callback: each gets its 200 at once, and ours still reach the controller.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unhandledInteraction } from "../../../src/adapters/slack/unhandled.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter } from "./harness.ts";

const user = { id: "U1", username: "ada", name: "ada", team_id: "T0TEAM" };
const team = { id: "T0TEAM", domain: "t" };

describe("interactive payloads nobody listens to", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let running: Running;
	beforeAll(async () => {
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		running = await startAdapter(fake, {
			tutor: new FakeTutor(),
			renderer: stubRenderer(undefined),
			state: createMemoryStateStore(),
		});
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
	});

	it("are acknowledged at once with 200, not 404 after 3 s", async () => {
		const payloads = [
			{ type: "view_closed", team, user, view: { id: "V1", callback_id: "lh:modal:x" }, is_cleared: false },
			{ type: "shortcut", team, user, callback_id: "something", trigger_id: "1.2.3" },
			{
				type: "block_actions",
				team,
				user,
				trigger_id: "1.2.4",
				container: { type: "message", channel_id: "C1", message_ts: "1.1" },
				actions: [{ action_id: "someone-elses-button", block_id: "b", type: "button", action_ts: "1.3" }],
			},
			{ type: "view_submission", team, user, view: { id: "V2", callback_id: "other", state: { values: {} } } },
		];
		for (const payload of payloads) {
			const res = await running.sender.interactive(payload);
			expect(res.status, String(payload.type)).toBe(200);
		}
	});

	it("tells ours from the rest", () => {
		expect(unhandledInteraction({ type: "block_actions", actions: [{ action_id: "lh:pick:call_1:0" }] })).toBe(false);
		expect(unhandledInteraction({ type: "block_actions", actions: [{ action_id: "lh-slack:end" }] })).toBe(false);
		expect(unhandledInteraction({ type: "view_submission", view: { callback_id: "lh:modal:open:call_1" } })).toBe(
			false,
		);
		expect(unhandledInteraction({ type: "event_callback" })).toBe(false);
		expect(unhandledInteraction({ type: "view_closed" })).toBe(true);
		expect(unhandledInteraction({ type: "block_actions", actions: [{ action_id: "x" }] })).toBe(true);
	});
});
