/**
 * Slack's own surfaces, through real Bolt over HTTP against the fake Slack with a fake Tutor: the Events API's
 * url_verification challenge, the invite hint when the bot is not in the channel (Slack's not_in_channel), and
 * lessons started from a mention (inside a thread that is no lesson too, though Slack sends the mention as a
 * message first). The `/lesson` commands themselves: contract/commands.test.ts.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };

describe("Slack's challenge, invite hint and mentions", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let tutor: FakeTutor;
	let running: Running;

	/** Send a command and wait for its ephemeral reply (via response_url). */
	const command = async (text: string): Promise<string> => {
		const replies = fake.callsTo("response_url").length;
		const res = await running.sender.command("/lesson", text, ADA);
		expect(res.status).toBe(200);
		expect(res.text).toBe(""); // acked at once, empty
		const reply = await fake.waitFor(() => fake.callsTo("response_url")[replies], `the reply to "${text}"`);
		return String(reply.params.text);
	};

	beforeAll(async () => {
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "U2", name: "bob" },
			],
		});
		tutor = new FakeTutor();
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() });
	});
	afterEach(() => {
		tutor.verdict = { ok: true };
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
	});

	it("answers Slack's url_verification challenge", async () => {
		const res = await running.sender.raw(
			JSON.stringify({ type: "url_verification", challenge: "c-123", token: "t" }),
			"application/json",
		);
		expect(res.status).toBe(200);
		expect(res.text).toContain("c-123");
	});

	it("says how to invite the bot when it is not in the channel", async () => {
		fake.override("chat.postMessage", () => ({ body: { ok: false, error: "not_in_channel" } }));
		try {
			expect(await command("start geometry")).toMatch(/Invite me first/);
		} finally {
			fake.override("chat.postMessage", undefined);
		}
	});

	it("starts a lesson from a mention with a topic, and explains when the topic is missing", async () => {
		const before = tutor.started.length;
		await running.sender.event({
			type: "app_mention",
			user: "U1",
			text: "<@U0BOT> photosynthesis",
			ts: running.sender.nextTs(),
			channel: "C1",
		});
		await fake.waitFor(() => tutor.started.length > before, "the mention's lesson");
		expect(tutor.started.at(-1)).toMatchObject({ topic: "photosynthesis", learner: { id: "U1" }, mode: "solo" });
		await running.sender.event({
			type: "app_mention",
			user: "U2",
			text: "<@U0BOT>",
			ts: running.sender.nextTs(),
			channel: "C1",
		});
		const hint = await fake.waitFor(
			() =>
				fake
					.callsTo("chat.postEphemeral")
					.find((c) => c.params.user === "U2" && /Mention me with a topic/.test(String(c.params.text))),
			"the mention hint",
		);
		expect(hint.params.channel).toBe("C1");
	});

	it("a mention inside a thread that is no lesson starts one, though Slack sends it as a message first", async () => {
		const before = tutor.started.length;
		tutor.verdict = { ok: false, code: "unknown-session", message: "No lesson runs in this thread." };
		try {
			const mention = {
				user: "U1",
				text: "<@U0BOT> tides",
				ts: running.sender.nextTs(),
				thread_ts: "1700000000.000100",
				channel: "C1",
			};
			// Slack delivers one mention as a `message` and as an `app_mention`; the message arrives first here.
			await running.sender.event({ type: "message", ...mention });
			await running.sender.event({ type: "app_mention", ...mention });
			await fake.waitFor(() => tutor.started.length > before, "the lesson the mention starts");
		} finally {
			tutor.verdict = { ok: true };
		}
		expect(tutor.started.at(-1)).toMatchObject({ topic: "tides", learner: { id: "U1" } });
	});
});
