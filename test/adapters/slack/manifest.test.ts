/**
 * The app manifest (docs/slack-manifest.yaml) declares what the Slack adapter uses: every Web API method the
 * adapter calls has its bot scope in the manifest (scopes from each method's reference page on docs.slack.dev,
 * "Required scopes"), every event it listens to is subscribed, and the agent pane's settings stay within what
 * the manifest schema allows (@slack/web-api's ManifestAgentView: a description of at most 300 characters,
 * at most 4 suggested prompts with a title and a message each).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(import.meta.dirname, "..", "..", "..");
const adapterDir = join(root, "src", "adapters", "slack");
const sources = readdirSync(adapterDir)
	.filter((f) => f.endsWith(".ts"))
	.map((f) => readFileSync(join(adapterDir, f), "utf8"))
	.join("\n");
const manifest = parse(readFileSync(join(root, "docs", "slack-manifest.yaml"), "utf8")) as {
	features: {
		agent_view?: { agent_description?: string; suggested_prompts?: Array<{ title?: string; message?: string }> };
	};
	oauth_config: { scopes: { bot: string[] } };
	settings: { event_subscriptions: { bot_events: string[] } };
};

/** The bot scope each method needs (one of them where several do); null: none. */
const SCOPE_OF: Record<string, string | null> = {
	// "chat:write" since 2026-03-05 (docs.slack.dev/changelog/2026/03/05/set-status-scope-update).
	"assistant.threads.setStatus": "chat:write",
	"assistant.threads.setSuggestedPrompts": "assistant:write",
	"assistant.threads.setTitle": "assistant:write",
	"chat.startStream": "chat:write",
	"chat.appendStream": "chat:write",
	"chat.stopStream": "chat:write",
	"chat.getPermalink": null,
	"chat.postEphemeral": "chat:write",
	"chat.postMessage": "chat:write",
	"chat.update": "chat:write",
	"conversations.open": "im:write",
	// Any of channels:history, groups:history, im:history, mpim:history: lesson threads are in channels.
	"conversations.replies": "channels:history",
	"files.getUploadURLExternal": "files:write",
	"files.completeUploadExternal": "files:write",
	"files.info": "files:read",
	"users.info": "users:read",
	"views.open": null,
	"views.publish": null,
};

/** The events a listener name subscribes to (a `message` listener hears channels, private channels and DMs). */
const EVENTS_OF: Record<string, string[]> = { message: ["message.channels", "message.groups", "message.im"] };

describe("the Slack app manifest declares what the adapter uses", () => {
	const methods = [...sources.matchAll(/client\s*\.\s*([a-zA-Z]+(?:\s*\.\s*[a-zA-Z]+)+)\s*\(/g)].map((m) =>
		(m[1] ?? "").replace(/\s+/g, ""),
	);

	it("finds the methods the adapter calls, each with its scope in the manifest", () => {
		expect(methods.length).toBeGreaterThan(10);
		const bot = manifest.oauth_config.scopes.bot;
		for (const method of new Set(methods)) {
			expect(Object.keys(SCOPE_OF), `${method}: add its scope to this test's table`).toContain(method);
			const scope = SCOPE_OF[method];
			if (scope) expect(bot, `${method} needs ${scope}`).toContain(scope);
		}
		// The commands and mentions come through their own scopes.
		expect(bot).toEqual(expect.arrayContaining(["commands", "app_mentions:read"]));
	});

	it("subscribes to every event the adapter listens to", () => {
		const listened = [...sources.matchAll(/app\.event\(\s*"([a-z_]+)"/g)].map((m) => m[1] ?? "");
		expect(listened).toEqual(
			expect.arrayContaining(["message", "app_mention", "app_home_opened", "assistant_thread_started"]),
		);
		const subscribed = manifest.settings.event_subscriptions.bot_events;
		for (const name of listened) for (const event of EVENTS_OF[name] ?? [name]) expect(subscribed).toContain(event);
	});

	it("keeps the agent pane within the manifest schema", () => {
		const pane = manifest.features.agent_view;
		expect(pane?.agent_description?.length ?? 0).toBeGreaterThan(0);
		expect(pane?.agent_description?.length ?? 0).toBeLessThanOrEqual(300);
		expect(pane?.suggested_prompts?.length ?? 0).toBeLessThanOrEqual(4);
		for (const p of pane?.suggested_prompts ?? []) {
			expect(p.title).toBeTruthy();
			expect(p.message).toBeTruthy();
		}
	});
});
