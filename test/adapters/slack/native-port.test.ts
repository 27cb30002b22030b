/**
 * Slack's port and the strict fake, call by call, for the thread status and chat streaming: the fake refuses
 * what Slack's documentation says Slack refuses (a status without its thread, more than 10 loading messages,
 * a stream to a channel without its recipient, text over 12,000 characters, text after the stop); the port's
 * status calls carry the documented arguments, a refusal never breaks a lesson (a missing scope or
 * `not_allowed` turns the status off for that workspace, quietly), and a stream Slack refuses falls back to a
 * normal post.
 */

import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PlatformPort } from "../../../src/adapters/lesson/port.ts";
import { toBoltLogger } from "../../../src/adapters/slack/bolt-logger.ts";
import { clientOptionsFor } from "../../../src/adapters/slack/config.ts";
import { createSlackPort } from "../../../src/adapters/slack/port.ts";
import type { SlackThread } from "../../../src/adapters/slack/thread-id.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import type { Card } from "../../../src/render/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { textOf } from "./harness.ts";

const intro = { topic: "fractions", learner: { id: "U1" }, startedBy: { id: "U1" }, mode: "solo" as const };
const explain = (body: string): Card => ({ kind: "explain", toolCallId: "e1", role: "concept", body });

describe("Slack thread status and chat streaming", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let client: webApi.WebClient;
	let port: PlatformPort<SlackThread>;
	let threadId = "";
	let threadTs = "";

	/** A Web API call's Slack error, or "ok". */
	const errorOf = (p: Promise<unknown>): Promise<string> =>
		p.then(
			() => "ok",
			(e: unknown) => String((e as { data?: { error?: unknown } }).data?.error ?? e),
		);

	beforeAll(async () => {
		fake = await startFakeSlack();
		const config = { botToken: "xoxb-test", signingSecret: "s", port: 0, adminUserIds: [], apiUrl: fake.apiUrl };
		const retry = { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 20 };
		client = new webApi.WebClient("xoxb-test", clientOptionsFor({ ...config, retry }, toBoltLogger(silentLogger)));
		port = createSlackPort(client, silentLogger);
	});
	beforeEach(async () => {
		const opened = await port.openThread({ community: fake.teamId, channelId: "C1" }, intro);
		if (!opened.ok) throw new Error(opened.message);
		threadId = opened.threadId;
		threadTs = port.decodeThreadId(threadId)?.threadTs ?? "";
	});
	afterAll(async () => {
		await fake?.close();
	});

	it("the fake refuses setStatus calls Slack would refuse", async () => {
		const set = (args: Record<string, unknown>) =>
			errorOf(client.apiCall("assistant.threads.setStatus", { channel_id: "C1", thread_ts: threadTs, ...args }));
		expect(await set({})).toBe("invalid_arguments"); // no status
		expect(await set({ status: "is thinking…", thread_ts: undefined })).toBe("invalid_arguments");
		expect(await set({ status: "x", loading_messages: Array.from({ length: 11 }, (_, i) => `m${i}`) })).toBe(
			"invalid_arguments",
		);
		expect(await set({ status: "x", thread_ts: "1.000001" })).toBe("invalid_thread_ts");
		expect(await set({ status: "x", channel_id: "C404" })).toBe("channel_not_found");
		expect(await set({ status: "is thinking…", loading_messages: ["a", "b"] })).toBe("ok");
		expect(fake.statusOf("C1", threadTs)).toBe("is thinking…");
		// Slack removes the status once the app posts in the thread.
		await client.chat.postMessage({ channel: "C1", thread_ts: threadTs, text: "hi" });
		expect(fake.statusOf("C1", threadTs)).toBeUndefined();
	});

	it("the fake refuses stream calls Slack would refuse", async () => {
		const start = (args: Record<string, unknown>) =>
			errorOf(
				client.apiCall("chat.startStream", {
					channel: "C1",
					thread_ts: threadTs,
					recipient_user_id: "U1",
					recipient_team_id: fake.teamId,
					markdown_text: "Hello",
					...args,
				}),
			);
		expect(await start({ recipient_user_id: undefined })).toBe("invalid_arguments");
		expect(await start({ recipient_team_id: undefined })).toBe("invalid_arguments");
		expect(await start({ thread_ts: undefined })).toBe("invalid_arguments");
		expect(await start({ markdown_text: "x".repeat(12_001) })).toBe("invalid_arguments");
		const started = await client.chat.startStream({
			channel: "C1",
			thread_ts: threadTs,
			recipient_user_id: "U1",
			recipient_team_id: fake.teamId,
			markdown_text: "Hello",
		});
		const ts = started.ts ?? "";
		expect(await errorOf(client.apiCall("chat.appendStream", { channel: "C1", ts }))).toBe("invalid_arguments");
		expect(await errorOf(client.chat.appendStream({ channel: "C1", ts, markdown_text: " world" }))).toBe("ok");
		expect(await errorOf(client.chat.stopStream({ channel: "C1", ts }))).toBe("ok");
		expect(await errorOf(client.chat.appendStream({ channel: "C1", ts, markdown_text: "late" }))).toBe(
			"message_not_in_streaming_state",
		);
		expect(fake.messages.get(ts)?.text).toBe("Hello world");
	});

	it("sets the status with its words and rotating messages, clears it with an empty status, in the lesson's language", async () => {
		await port.workStatus?.(threadId, "thinking", "de");
		await port.workStatus?.(threadId, undefined, "de");
		const [set, clear] = fake.callsTo("assistant.threads.setStatus").slice(-2);
		expect(set?.params).toMatchObject({ channel_id: "C1", thread_ts: threadTs, status: "denkt nach…" });
		expect(Array.isArray(set?.params.loading_messages)).toBe(true);
		expect(clear?.params).toMatchObject({ channel_id: "C1", thread_ts: threadTs, status: "" });
		expect(clear?.params.loading_messages).toBeUndefined();
	});

	it("a refusal never throws; missing_scope turns the status off for that workspace, quietly", async () => {
		fake.refuse("assistant.threads.setStatus", "ratelimited_not", { times: 1 });
		await expect(port.workStatus?.(threadId, "thinking", "en")).resolves.toBeUndefined();
		fake.refuse("assistant.threads.setStatus", "missing_scope", { times: 1 });
		await port.workStatus?.(threadId, "drawing", "en");
		const calls = fake.callsTo("assistant.threads.setStatus").length;
		await port.workStatus?.(threadId, "thinking", "en");
		await port.workStatus?.(threadId, undefined, "en");
		expect(fake.callsTo("assistant.threads.setStatus")).toHaveLength(calls);
		// Cards still go out.
		expect(await port.postCard(threadId, { kind: "text", tone: "plain", text: "still here" })).toHaveLength(1);
	});

	it("streams an explanation to the solo learner; posts it when Slack refuses the stream or nobody is named", async () => {
		const body = ["First idea.", "Second idea.", "Third idea."]
			.map((p) => `${p} ${"More words. ".repeat(70)}`)
			.join("\n\n");
		const ids = await port.postCard(threadId, explain(body), { streamTo: { id: "U1" } });
		expect(ids).toHaveLength(1);
		const stream = fake.streams.get(ids[0] ?? "");
		expect(stream).toMatchObject({ threadTs, recipientUserId: "U1", recipientTeamId: fake.teamId, streaming: false });
		expect(stream?.parts.length).toBeGreaterThan(2);
		expect(stream?.parts.join("")).toContain("Third idea.");

		// No recipient (a group lesson): a normal post.
		const posts = fake.callsTo("chat.postMessage").length;
		await port.postCard(threadId, explain("Group idea."));
		expect(
			fake
				.callsTo("chat.postMessage")
				.slice(posts)
				.some((c) => textOf(c.params).includes("Group idea.")),
		).toBe(true);

		// Slack refuses the stream: the card is posted instead, nothing lost.
		fake.refuse("chat.startStream", "channel_type_not_supported", { times: 1 });
		const again = fake.callsTo("chat.postMessage").length;
		const posted = await port.postCard(threadId, explain("Refused idea."), { streamTo: { id: "U1" } });
		expect(posted).toHaveLength(1);
		expect(
			fake
				.callsTo("chat.postMessage")
				.slice(again)
				.some((c) => textOf(c.params).includes("Refused idea.")),
		).toBe(true);
		// Model text cannot mention anyone through the stream.
		const [ts] = await port.postCard(threadId, explain("Tell <!channel> and <@U2>."), { streamTo: { id: "U1" } });
		expect(fake.streams.get(ts ?? "")?.parts.join("")).not.toMatch(/<[!@]/);
		expect(fake.limitProblems()).toEqual([]);
	});
});
