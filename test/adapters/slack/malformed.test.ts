/**
 * No crash on Slack's side: malformed requests of every kind (bodies that are
 * not JSON, interactivity payloads missing their user, channel or actions,
 * modal submissions with foreign metadata, events with odd fields) and Web API
 * errors on every call the handlers make are logged and survived: no
 * unhandled rejection, nothing reaches the tutor, and the next command works.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };

describe("Slack adapter under malformed input and API errors", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let running: Running;
	const tutor = new FakeTutor();
	const rejections: unknown[] = [];
	const onRejection = (reason: unknown) => void rejections.push(reason);

	beforeAll(async () => {
		process.on("unhandledRejection", onRejection);
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() });
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
		process.off("unhandledRejection", onRejection);
	});

	const helpStillWorks = async () => {
		const before = fake.callsTo("response_url").length;
		const res = await running.sender.command("/lesson", "help", ADA);
		expect(res.status).toBe(200);
		await fake.waitFor(() => fake.callsTo("response_url").length > before, "the help reply");
	};

	it("survives bodies that are not what Slack sends", async () => {
		const s = running.sender;
		const statuses = [
			(await s.raw("not json", "application/json")).status,
			(await s.raw("payload=%7Bnot-json", "application/x-www-form-urlencoded")).status,
			(await s.raw("", "application/json")).status,
			(await s.raw(JSON.stringify({ type: "event_callback", event: null }), "application/json")).status,
			(await s.raw("command=%2Flesson", "application/x-www-form-urlencoded")).status,
		];
		expect(statuses.every((status) => status < 600)).toBe(true);
		await helpStillWorks();
	});

	it("survives interactivity payloads missing their parts, and records nothing", async () => {
		const s = running.sender;
		const full = s.actionPayload(ADA, "1700000000.000001", { action_id: "lh:pick:q1:0" });
		const payloads: Record<string, unknown>[] = [
			{ ...full, user: undefined },
			{ ...full, container: undefined, channel: undefined },
			{ ...full, team: undefined, user: { id: "U1" } },
			{ ...full, actions: [{ action_id: "lh:select:q1:0", type: "static_select" }] },
			{ ...full, actions: [{ action_id: "lh:open:q1", type: "button" }], trigger_id: undefined },
			{ ...full, actions: [{ action_id: "lh-slack:end", type: "button" }], container: { type: "view" } },
			{ ...full, message: null },
		];
		for (const payload of payloads) expect((await s.interactive(payload)).status).toBeLessThan(600);
		const values = { "lh:text:q1": { "lh:text:q1": { type: "plain_text_input", value: "hi" } } };
		for (const view of [
			{ callback_id: "lh:modal:q1", private_metadata: "{broken" },
			{ callback_id: "lh:modal:q1", private_metadata: JSON.stringify({ s: "slack:T-OTHER:C1:1.2", t: "q1" }) },
			{ callback_id: "lh:modal:q1", private_metadata: JSON.stringify({ s: "discord:1:2", t: "q1" }) },
			{ callback_id: "lh:modal:q2", private_metadata: JSON.stringify({ s: `slack:${fake.teamId}:C1:1.2`, t: "q1" }) },
		])
			expect((await s.viewSubmission(ADA, view, values)).status).toBe(200);
		const stateless = s.viewSubmissionPayload(ADA, { callback_id: "lh:modal:q1" }, {});
		expect((await s.interactive({ ...stateless, view: { ...(stateless.view as object), state: null } })).status).toBe(
			200,
		);
		// Nothing reached a lesson: at most the tutor was asked about a thread it does not know (and refused).
		expect(tutor.handled.filter((h) => tutor.sessions.has(h.sessionId))).toEqual([]);
		await helpStillWorks();
	});

	it("survives events with odd fields", async () => {
		const s = running.sender;
		const thread = { channel: "C1", thread_ts: "1700000000.000001" };
		for (const event of [
			{ type: "message", text: 42, ts: s.nextTs(), user: "U1", ...thread },
			{ type: "message", ts: s.nextTs(), ...thread },
			{ type: "message", user: "U1", text: "hi", ts: s.nextTs() },
			{ type: "message", subtype: "message_deleted", ts: s.nextTs(), ...thread },
			{ type: "app_mention", user: "U1", text: { rich: true }, ts: s.nextTs(), channel: "C1" },
			{ type: "app_mention", ts: s.nextTs() },
			{ type: "reaction_added", user: "U1", reaction: "tada" },
		])
			expect((await s.event(event)).status).toBe(200);
		await helpStillWorks();
	});

	it("survives Web API errors on every call a handler makes", async () => {
		for (const method of ["chat.postMessage", "chat.postEphemeral", "views.open", "users.info"])
			fake.override(method, () => ({ status: 500, body: { ok: false, error: "internal_error" } }));
		try {
			const s = running.sender;
			await s.command("/lesson", "start fractions", ADA);
			await s.action(ADA, "1700000000.000009", { action_id: "lh:open:q9" });
			await s.event({ type: "app_mention", user: "U1", text: "<@U0BOT>", ts: s.nextTs(), channel: "C1" });
			await fake.waitFor(() => fake.callsTo("chat.postEphemeral").length >= 2, "the notices that failed");
			await fake.waitFor(() => fake.callsTo("response_url").length > 0, "the command's reply");
		} finally {
			for (const method of ["chat.postMessage", "chat.postEphemeral", "views.open", "users.info"])
				fake.override(method, undefined);
		}
		expect(tutor.started).toEqual([]);
		await helpStillWorks();
		expect(rejections).toEqual([]);
	});
});
