/**
 * Self-test of test/fakes/slack.ts against the real @slack/web-api and Bolt, so the
 * adapter's end-to-end tests stand on a fake that speaks what the real clients speak.
 */

import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, LogLevel, webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockProblems, type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";

const quietClient = { logLevel: LogLevel.ERROR, retryConfig: { retries: 0 } };

describe("fake Slack Web API", () => {
	let fake: FakeSlack;
	beforeAll(async () => {
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada", is_admin: true }] });
	});
	afterAll(async () => {
		await fake.close();
	});

	it("answers auth.test, users.info and records chat calls with parsed blocks", async () => {
		const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, ...quietClient });
		const auth = await client.auth.test();
		expect(auth.user_id).toBe(fake.botUserId);
		const info = await client.users.info({ user: "U1" });
		expect(info.user?.is_admin).toBe(true);
		const posted = await client.chat.postMessage({
			channel: "C1",
			text: "hello",
			blocks: [{ type: "section", text: { type: "mrkdwn", text: "*hi*" } }],
		});
		await client.chat.update({ channel: "C1", ts: posted.ts!, text: "edited", blocks: [] });
		const call = fake.callsTo("chat.postMessage")[0];
		expect(call?.token).toBe("xoxb-test");
		expect(call?.params.blocks).toEqual([{ type: "section", text: { type: "mrkdwn", text: "*hi*" } }]);
		expect(fake.messages.get(posted.ts!)?.text).toBe("edited");
	});

	it("refuses a bad token and blocks beyond Slack's limits", async () => {
		const bad = new webApi.WebClient("nope", { slackApiUrl: fake.apiUrl, ...quietClient });
		await expect(bad.auth.test()).rejects.toThrow(/invalid_auth/);
		const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, ...quietClient });
		const long = [{ type: "section", text: { type: "mrkdwn", text: "x".repeat(3001) } }];
		await expect(client.chat.postMessage({ channel: "C1", text: "t", blocks: long })).rejects.toThrow(/invalid_blocks/);
		expect(blockProblems(long)).toHaveLength(1);
	});

	it("runs the three-step upload of files.uploadV2 into a thread", async () => {
		const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, ...quietClient });
		const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
		await client.files.uploadV2({
			channel_id: "C1",
			thread_ts: "1700000000.000001",
			file: bytes,
			filename: "plan.png",
			title: "Plan",
			initial_comment: "Now: A",
		});
		const up = fake.uploads.at(-1);
		expect(up?.completed).toBe(true);
		expect(up?.bytes?.equals(bytes)).toBe(true);
		expect(up?.threadTs).toBe("1700000000.000001");
		expect(up?.channelId).toBe("C1");
		expect(up?.initialComment).toBe("Now: A");
	});

	it("shows an image block's file only where it is shared, and never one named twice (slack/files.ts)", async () => {
		const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, ...quietClient });
		const png = Buffer.from("89504e470d0a1a0a0000", "hex");
		const privately = await client.files.uploadV2({ file: png, filename: "private.png" });
		const sharedHere = await client.files.uploadV2({ channel_id: "C1", file: png, filename: "here.png" });
		const elsewhere = await client.files.uploadV2({ channel_id: "C2", file: png, filename: "there.png" });
		const idOf = (r: unknown) =>
			(r as { files: Array<{ files?: Array<{ id?: string }> }> }).files[0]?.files?.[0]?.id ?? "";
		const image = (slack_file: Record<string, unknown>) => [{ type: "image", alt_text: "x", slack_file }];
		const post = (slack_file: Record<string, unknown>) =>
			client.chat.postMessage({ channel: "C1", text: "t", blocks: image(slack_file) as never });
		await expect(post({ id: idOf(privately) })).rejects.toThrow(/invalid_blocks/);
		expect(fake.calls.at(-1)?.error).toBe("invalid_blocks");
		await expect(post({ id: idOf(elsewhere) })).rejects.toThrow(/invalid_blocks/);
		await expect(post({ id: "F404" })).rejects.toThrow(/invalid_blocks/);
		expect((await post({ id: idOf(sharedHere) })).ok).toBe(true);
		const info = await client.files.info({ file: idOf(sharedHere) });
		expect((await post({ url: info.file?.url_private ?? "" })).ok).toBe(true);
		await expect(post({ id: idOf(sharedHere), url: info.file?.url_private ?? "" })).rejects.toThrow(/invalid_blocks/);
	});

	it("describes a file with files.info as Slack does; a Slack Connect share carries only its id", async () => {
		const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, ...quietClient });
		const data = Buffer.from("89504e470d0a1a0a", "hex");
		const connect = fake.shareFile({ name: "chart.png", mimetype: "image/png", data, channel: "C9", connect: true });
		expect(Object.keys(connect).sort()).toEqual(["created", "file_access", "id", "mode", "timestamp", "user"]);
		const info = await client.files.info({ file: connect.id });
		expect(info.file).toMatchObject({ id: connect.id, name: "chart.png", mimetype: "image/png", channels: ["C9"] });
		const bytes = await fetch(info.file?.url_private ?? "", { headers: { authorization: "Bearer xoxb-test" } });
		expect(Buffer.from(await bytes.arrayBuffer()).equals(data)).toBe(true);
		await expect(client.files.info({ file: "F404" })).rejects.toThrow(/file_not_found/);
	});

	it("answers an error on request as Slack answers it, then goes back to normal", async () => {
		const client = new webApi.WebClient("xoxb-test", { slackApiUrl: fake.apiUrl, ...quietClient });
		fake.refuse("chat.postMessage", "account_inactive", { times: 2 });
		await expect(client.chat.postMessage({ channel: "C1", text: "a" })).rejects.toThrow(/account_inactive/);
		await expect(client.chat.postMessage({ channel: "C1", text: "b" })).rejects.toThrow(/account_inactive/);
		expect((await client.chat.postMessage({ channel: "C1", text: "c" })).ok).toBe(true);
		fake.refuse("conversations.info", "ratelimited", { retryAfter: 1 });
		const res = await fetch(`${fake.apiUrl}conversations.info`, {
			method: "POST",
			headers: { authorization: "Bearer xoxb-test", "content-type": "application/json" },
			body: JSON.stringify({ channel: "C1" }),
		});
		expect([res.status, res.headers.get("retry-after"), (await res.json()).error]).toEqual([429, "1", "ratelimited"]);
	});

	it("makes the client wait out a 429 and retry", async () => {
		let first = true;
		fake.override("chat.postEphemeral", () => {
			if (!first) return undefined;
			first = false;
			return { status: 429, retryAfter: 1, body: { ok: false, error: "ratelimited" } };
		});
		const client = new webApi.WebClient("xoxb-test", {
			slackApiUrl: fake.apiUrl,
			logLevel: LogLevel.ERROR,
			retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 50 },
		});
		const res = await client.chat.postEphemeral({ channel: "C1", user: "U1", text: "hi" });
		expect(res.ok).toBe(true);
		expect(fake.callsTo("chat.postEphemeral")).toHaveLength(2);
		fake.override("chat.postEphemeral", undefined);
	});
});

describe("fake Slack requests to Bolt over HTTP", () => {
	let fake: FakeSlack;
	let app: App;
	let url = "";
	const seen: string[] = [];
	beforeAll(async () => {
		fake = await startFakeSlack();
		const receiver = new HTTPReceiver({ signingSecret: fake.signingSecret, logLevel: LogLevel.ERROR });
		app = new App({
			token: "xoxb-test",
			receiver,
			logLevel: LogLevel.ERROR,
			clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
		});
		app.command("/lesson", async ({ ack, command }) => {
			await ack({ text: `got ${command.text}` });
		});
		app.action(/.*/, async ({ ack, action }) => {
			await ack();
			seen.push(`action:${"action_id" in action ? action.action_id : "?"}`);
		});
		app.view(/.*/, async ({ ack, view }) => {
			await ack({ response_action: "errors", errors: { answer: `no ${view.callback_id}` } });
		});
		app.event("app_mention", async ({ event }) => {
			seen.push(`mention:${event.text}`);
		});
		const server = (await app.start({ port: 0, host: "127.0.0.1" })) as unknown as { address(): AddressInfo };
		url = `http://127.0.0.1:${server.address().port}/slack/events`;
	});
	afterAll(async () => {
		await app.stop();
		await fake.close();
	});

	it("delivers a signed slash command and returns the ack body", async () => {
		const res = await fake.sender(url).command("/lesson", "start fractions", { user: "U1", channel: "C1" });
		expect(res.status).toBe(200);
		expect(res.json?.text).toBe("got start fractions");
	});

	it("refuses a bad signature and a stale timestamp with 401", async () => {
		const sender = fake.sender(url);
		const bad = await sender.command("/lesson", "help", { user: "U1", channel: "C1" }, { secret: "wrong" });
		expect(bad.status).toBe(401);
		const stale = await sender.command(
			"/lesson",
			"help",
			{ user: "U1", channel: "C1" },
			{
				timestampSec: Math.floor(Date.now() / 1000) - 600,
			},
		);
		expect(stale.status).toBe(401);
	});

	it("delivers block_actions, view_submission and events", async () => {
		const sender = fake.sender(url);
		const act = await sender.action({ user: "U1", channel: "C1" }, "1.0", { action_id: "lh:pick:t1:0" });
		expect(act.status).toBe(200);
		const view = await sender.viewSubmission({ user: "U1", channel: "C1" }, { callback_id: "cb" }, {});
		expect(view.json).toEqual({ response_action: "errors", errors: { answer: "no cb" } });
		const ev = await sender.event({ type: "app_mention", user: "U1", text: "<@U0BOT> hi", ts: "1.1", channel: "C1" });
		expect(ev.status).toBe(200);
		await fake.waitFor(() => seen.includes("mention:<@U0BOT> hi"), "the mention", 5000);
		expect(seen).toContain("action:lh:pick:t1:0");
	});
});

describe("fake Slack Socket Mode", () => {
	it("connects Bolt, sends hello and an envelope, and receives the ack", async () => {
		const fake = await startFakeSlack();
		const app = new App({
			token: "xoxb-test",
			appToken: "xapp-test",
			socketMode: true,
			logLevel: LogLevel.ERROR,
			clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
		});
		app.command("/lesson", async ({ ack }) => {
			await ack({ text: "over the socket" });
		});
		try {
			const connected = fake.socketConnected(10_000);
			await app.start();
			await connected;
			const ack = await fake.socketSend("slash_commands", {
				command: "/lesson",
				text: "help",
				user_id: "U1",
				channel_id: "C1",
				team_id: fake.teamId,
				response_url: `${fake.baseUrl}/respond/1`,
				trigger_id: "t",
			});
			expect(ack.payload).toEqual({ text: "over the socket" });
			expect(fake.callsTo("apps.connections.open")[0]?.token).toBe("xapp-test");
		} finally {
			await app.stop();
			await fake.close();
		}
	});
});
