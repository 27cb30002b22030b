/**
 * The recorded payloads' manifest (testkit/fixtures/recorded/manifest.json): every file listed once with where it
 * came from, every listed file there and readable, at least 60 of them, and the cases issue 27 asks for present in
 * the payloads themselves (not in their names): Slack mentions, thread replies, file shares (one from Slack
 * Connect), edits, bot messages and direct messages; buttons, selects, view submissions and a view_closed; slash
 * commands; Discord commands with and without a channel, buttons, modal submits, in a guild and in a DM; gateway
 * messages with attachments; OpenAI Responses and chat-completions streams with tool calls, and an error event.
 */

import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { entriesOf, eventOf, RECORDED_DIR, readObject, readPayload, readStream, recordedEntries } from "./payloads.ts";

type Json = Record<string, unknown>;

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [relative(RECORDED_DIR, path)];
	});
}

const some = (values: Json[], test: (v: Json) => boolean) => values.some(test);
const obj = (v: unknown): Json => (typeof v === "object" && v !== null ? (v as Json) : {});

describe("the recorded payloads' manifest", () => {
	const entries = recordedEntries();

	it("lists at least 60 payloads, each file once, and every file of the folder", () => {
		expect(entries.length).toBeGreaterThanOrEqual(60);
		const listed = entries.map((e) => e.file);
		expect(new Set(listed).size).toBe(listed.length);
		const present = filesUnder(RECORDED_DIR).filter((f) => f !== "manifest.json");
		expect(listed.sort()).toEqual(present.sort());
		for (const file of listed) expect(() => readPayload(file), file).not.toThrow();
	});

	it("names each payload's source: a repository, a path and a full commit, or an address", () => {
		for (const { file, source, origin, what } of entries) {
			if ("url" in source) expect(source.url, file).toMatch(/^https:\/\//);
			else {
				expect(source.repository, file).toMatch(/^[\w.-]+\/[\w.-]+$/);
				expect(source.path, file).not.toBe("");
				expect(source.commit, file).toMatch(/^[0-9a-f]{40}$/);
			}
			expect(origin, file).not.toBe("");
			expect(what, file).not.toBe("");
		}
	});

	it("says why for every field a replay rewrites", () => {
		for (const { file, adapted } of entries)
			for (const a of adapted) {
				expect(a.field, file).not.toBe("");
				expect(a.why.length, `${file} ${a.field}`).toBeGreaterThan(10);
			}
	});

	it("covers Slack events: mentions, thread replies, file shares (Slack Connect too), edits, bots, direct messages", () => {
		const events = entriesOf("slack-event").map((e) => eventOf(readObject(e.file)));
		const files = events.flatMap((e) => (Array.isArray(e.files) ? e.files.map(obj) : []));
		expect(some(events, (e) => e.type === "app_mention")).toBe(true);
		expect(
			some(events, (e) => e.type === "message" && typeof e.thread_ts === "string" && e.subtype === undefined),
		).toBe(true);
		expect(some(events, (e) => e.subtype === "file_share")).toBe(true);
		expect(some(files, (f) => f.file_access === "check_file_info")).toBe(true);
		expect(some(files, (f) => typeof f.url_private === "string")).toBe(true);
		expect(some(events, (e) => e.subtype === "message_changed")).toBe(true);
		expect(some(events, (e) => e.bot_id !== undefined || e.subtype === "bot_message")).toBe(true);
		expect(some(events, (e) => e.channel_type === "im")).toBe(true);
	});

	it("covers Slack interactions and slash commands: buttons, selects, view submissions, view_closed", () => {
		const payloads = entriesOf("slack-interactive").map((e) => readObject(e.file));
		const actions = payloads.flatMap((p) => (Array.isArray(p.actions) ? p.actions.map(obj) : []));
		expect(some(actions, (a) => a.type === "button")).toBe(true);
		expect(some(actions, (a) => a.type === "static_select")).toBe(true);
		expect(some(payloads, (p) => p.type === "view_submission")).toBe(true);
		expect(some(payloads, (p) => p.type === "view_closed")).toBe(true);
		const commands = entriesOf("slack-command").map((e) => readObject(e.file));
		expect(commands.length).toBeGreaterThan(0);
		expect(commands.every((c) => typeof c.command === "string" && typeof c.text === "string")).toBe(true);
	});

	it("covers Discord: commands with and without channel, buttons, modal submits, guild and DM, attachments", () => {
		const interactions = entriesOf("discord-interaction").map((e) => readObject(e.file));
		const commands = interactions.filter((i) => i.type === 2);
		expect(some(commands, (c) => c.channel !== undefined)).toBe(true);
		expect(some(commands, (c) => c.channel === undefined)).toBe(true);
		expect(some(interactions, (i) => i.type === 3 && obj(i.data).component_type === 2)).toBe(true);
		expect(some(interactions, (i) => i.type === 5)).toBe(true);
		expect(some(interactions, (i) => i.guild_id === undefined && i.user !== undefined)).toBe(true);
		expect(some(interactions, (i) => typeof i.guild_id === "string" && i.member !== undefined)).toBe(true);
		const messages = entriesOf("discord-dispatch");
		expect(messages.every((m) => m.event === "MESSAGE_CREATE")).toBe(true);
		const attached = messages.map((m) => readObject(m.file)).filter((m) => Array.isArray(m.attachments));
		expect(some(attached, (m) => (m.attachments as unknown[]).length > 0)).toBe(true);
	});

	it("covers OpenAI: Responses and chat-completions streams with tool calls, an error event, error bodies", () => {
		const responses = entriesOf("openai-responses-stream").map((e) => readStream(e.file));
		const items = responses.flat().filter((e): e is Json => e !== "[DONE]");
		expect(some(items, (e) => obj(e.item).type === "function_call")).toBe(true);
		expect(some(items, (e) => e.type === "error")).toBe(true);
		const chat = entriesOf("openai-chat-stream").map((e) => readStream(e.file));
		const deltas = chat
			.flat()
			.filter((e): e is Json => e !== "[DONE]")
			.flatMap((e) => (Array.isArray(e.choices) ? e.choices.map((c) => obj(obj(c).delta)) : []));
		expect(some(deltas, (d) => Array.isArray(d.tool_calls))).toBe(true);
		expect(entriesOf("openai-error-body").length).toBeGreaterThan(0);
	});
});
