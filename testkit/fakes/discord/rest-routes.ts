/**
 * The fake Discord's REST routes (API v10): gateway info, users and the
 * application, commands, guilds and members, channels and messages (JSON and
 * multipart), threads, typing, interaction callbacks and webhook follow-ups.
 * Bodies are checked against Discord's limits; a violation answers 400.
 */

import {
	autocompleteProblems,
	commandProblems,
	messageProblems,
	threadNameProblems,
} from "../../fixtures/discord/limits.ts";
import { modalProblems } from "../../fixtures/discord/limits-modal.ts";
import { channelObject, memberObject, messageObject, snowflake, userObject } from "../../fixtures/discord/payloads.ts";
import type { FakeDiscord, FakeInteraction, FakeMessage } from "../discord.ts";
import type { FakeFile, RecordedCall } from "./types.ts";

/** A route's answer: status and JSON body (none for 204). */
export type RouteResult = [number, unknown?];

/** What a route handler sees. */
export interface RouteRequest {
	params: string[];
	body: unknown;
	files: FakeFile[];
	query: Record<string, string>;
	call: RecordedCall;
}

/** A route: method, path pattern, handler. */
export type Route = [string, RegExp, (req: RouteRequest) => Promise<RouteResult> | RouteResult];

/** Discord's error body. */
export const err = (status: number, code: number, message: string, errors?: unknown): [number, unknown] => [
	status,
	{ code, message, ...(errors ? { errors } : {}) },
];

/** The names of the uploaded files (what `attachment://<filename>` may reference). */
const namesOf = (files: FakeFile[]): string[] => files.map((f) => f.filename);

/** A message as an edit sees it: its flags (IS_COMPONENTS_V2 cannot be removed) and its attachments' names. */
const existingOf = (m: FakeMessage) => ({ flags: m.flags, attachmentNames: m.attachments.map((a) => a.filename) });

/** Every route of the fake, bound to it. */
export function restRoutes(fake: FakeDiscord): Route[] {
	const routes: Route[] = [];
	const route = (method: string, pattern: string, handler: Route[2]) => {
		routes.push([method, new RegExp(`^${pattern.replace(/:[a-z]+/g, "([^/]+)")}$`), handler]);
	};
	const known = (guildId: string | undefined) => fake.guilds.some((g) => g.id === guildId);
	const gw = () => ({
		url: fake.gatewayUrl,
		shards: fake.shards,
		session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: fake.maxConcurrency },
	});
	const app = () => ({
		id: fake.applicationId,
		name: "learnharness",
		description: "",
		bot_public: true,
		bot: userObject(fake.bot),
		flags: 0,
		owner: userObject(fake.users.admin),
	});
	route("GET", "/gateway/bot", () => [200, gw()]);
	route("GET", "/gateway", () => [200, { url: fake.gatewayUrl }]);
	route("GET", "/users/@me", () => [200, userObject(fake.bot)]);
	route("GET", "/users/:id", ({ params }) => {
		const m = fake.members.find((x) => x.user.id === params[0]);
		return m ? [200, userObject(m.user)] : err(404, 10013, "Unknown User");
	});
	route("GET", "/applications/@me", () => [200, app()]);
	route("GET", "/oauth2/applications/@me", () => [200, app()]);
	const commands = (guildId?: string) => (guildId ? (fake.commands.guild.get(guildId) ?? []) : fake.commands.global);
	const putCommands = (params: string[], body: unknown, guildId?: string): [number, unknown] => {
		if (params[0] !== fake.applicationId) return err(403, 50001, "Missing Access");
		if (!Array.isArray(body)) return err(400, 50035, "Invalid Form Body");
		const problems = body.flatMap((c) => commandProblems(c));
		if (problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems });
		const saved = body.map((c: Record<string, unknown>) => ({
			...c,
			id: snowflake(),
			application_id: fake.applicationId,
			version: snowflake(),
			type: c.type ?? 1,
			...(guildId ? { guild_id: guildId } : {}),
		}));
		if (guildId) fake.commands.guild.set(guildId, saved);
		else fake.commands.global = saved;
		return [200, saved];
	};
	route("GET", "/applications/:app/commands", () => [200, commands()]);
	route("PUT", "/applications/:app/commands", ({ params, body, call }) => {
		call.problems = Array.isArray(body) ? body.flatMap((c) => commandProblems(c)) : [];
		return putCommands(params, body);
	});
	route("GET", "/applications/:app/guilds/:guild/commands", ({ params }) => [200, commands(params[1])]);
	route("PUT", "/applications/:app/guilds/:guild/commands", ({ params, body, call }) => {
		call.problems = Array.isArray(body) ? body.flatMap((c) => commandProblems(c)) : [];
		if (!known(params[1])) return err(404, 10004, "Unknown Guild");
		return putCommands(params, body, params[1]);
	});
	for (const path of ["/applications/:app/commands", "/applications/:app/guilds/:guild/commands"]) {
		route("POST", path, ({ params, body, call }) => {
			call.problems = commandProblems(body);
			const list = [...commands(params[1]).filter((c) => c.name !== (body as { name?: unknown })?.name), body];
			const [status, saved] = putCommands(params, list, params[1]);
			return status === 200 ? [201, (saved as unknown[]).at(-1)] : [status, saved];
		});
	}
	route("GET", "/guilds/:guild", ({ params }) => {
		if (!known(params[0])) return err(404, 10004, "Unknown Guild");
		const { channels: _c, threads: _t, members: _m, ...rest } = fake.guildCreate(params[0]);
		return [200, rest];
	});
	route("GET", "/guilds/:guild/channels", ({ params }) => [
		200,
		[...fake.channels.values()]
			.filter((c) => c.guildId === params[0] && c.type !== 11 && c.type !== 12)
			.map(channelObject),
	]);
	route("GET", "/guilds/:guild/roles", ({ params }) => [200, fake.guildCreate(params[0]).roles]);
	route("GET", "/guilds/:guild/members/:user", ({ params }) => {
		const m = fake.members.find((x) => x.user.id === params[1]);
		return m ? [200, memberObject(m)] : err(404, 10007, "Unknown Member");
	});
	route("GET", "/channels/:id", ({ params }) => {
		const c = fake.channels.get(params[0]!);
		return c ? [200, channelObject(c)] : err(404, 10003, "Unknown Channel");
	});
	route("PATCH", "/channels/:id", ({ params, body }) => {
		const c = fake.channels.get(params[0]!);
		if (!c) return err(404, 10003, "Unknown Channel");
		const b = (body ?? {}) as Record<string, unknown>;
		if (typeof b.name === "string") c.name = b.name;
		if (typeof b.archived === "boolean") c.archived = b.archived;
		if (typeof b.locked === "boolean") c.locked = b.locked;
		fake.dispatch(c.type === 11 || c.type === 12 ? "THREAD_UPDATE" : "CHANNEL_UPDATE", channelObject(c));
		return [200, channelObject(c)];
	});
	// Newest first, `limit` of them (Discord: 1-100, default 50).
	route("GET", "/channels/:id/messages", ({ params, query }) => {
		const limit = query.limit === undefined ? 50 : Number(query.limit);
		if (!Number.isInteger(limit) || limit < 1 || limit > 100) return err(400, 50035, "Invalid Form Body");
		return [
			200,
			fake
				.channelMessages(params[0]!)
				.reverse()
				.slice(0, limit)
				.map((m) => messageObject(m, fake.baseUrl)),
		];
	});
	route("GET", "/channels/:id/messages/:mid", ({ params }) => {
		const m = fake.messages.get(params[1]!);
		return m && m.channelId === params[0] && !m.deleted
			? [200, messageObject(m, fake.baseUrl)]
			: err(404, 10008, "Unknown Message");
	});
	route("POST", "/channels/:id/messages", ({ params, body, files, call }) => {
		const c = fake.channels.get(params[0]!);
		if (!c) return err(404, 10003, "Unknown Channel");
		if (c.type === 2) return err(400, 50008, "Cannot send messages in a non-text channel");
		call.problems = messageProblems(body, files.length, false, namesOf(files));
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		return [200, messageObject(fake.storeMessage(c, fake.bot, body as Record<string, unknown>, files), fake.baseUrl)];
	});
	route("PATCH", "/channels/:id/messages/:mid", ({ params, body, files, call }) => {
		const m = fake.messages.get(params[1]!);
		if (!m || m.channelId !== params[0] || m.deleted) return err(404, 10008, "Unknown Message");
		if (m.author.id !== fake.bot.id) return err(403, 50005, "Cannot edit a message authored by another user");
		call.problems = messageProblems(body, files.length, true, namesOf(files), existingOf(m));
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		return [200, messageObject(fake.editMessage(m, body as Record<string, unknown>, files), fake.baseUrl)];
	});
	route("DELETE", "/channels/:id/messages/:mid", ({ params }) => {
		const m = fake.messages.get(params[1]!);
		if (!m) return err(404, 10008, "Unknown Message");
		m.deleted = true;
		return [204];
	});
	route("POST", "/channels/:id/threads", ({ params, body, call }) => {
		const c = fake.channels.get(params[0]!);
		if (!c) return err(404, 10003, "Unknown Channel");
		call.problems = threadNameProblems((body as { name?: unknown })?.name);
		return fake.createThread(c, (body ?? {}) as Record<string, unknown>);
	});
	route("POST", "/channels/:id/messages/:mid/threads", ({ params, body, call }) => {
		const c = fake.channels.get(params[0]!);
		const m = fake.messages.get(params[1]!);
		if (!c || !m) return err(404, 10008, "Unknown Message");
		call.problems = threadNameProblems((body as { name?: unknown })?.name);
		return fake.createThread(c, (body ?? {}) as Record<string, unknown>, m);
	});
	route("PUT", "/channels/:id/thread-members/:user", () => [204]);
	route("POST", "/channels/:id/typing", ({ params }) =>
		fake.channels.has(params[0]!) ? [204] : err(404, 10003, "Unknown Channel"),
	);
	route("POST", "/webhooks/:app/:token", ({ params, body, files, call }) => {
		const it = params[0] === fake.applicationId ? fake.interactions.get(params[1]!) : undefined;
		if (!it || it.responseType === undefined) return err(404, 10015, "Unknown Webhook");
		call.problems = messageProblems(body, files.length, false, namesOf(files));
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		const b = body as Record<string, unknown>;
		const ephemeral = typeof b.flags === "number" && (b.flags & 64) !== 0;
		const m = fake.storeMessage(fake.channels.get(it.channelId)!, fake.bot, b, files, {
			webhookId: fake.applicationId,
			interactionId: it.id,
			...(ephemeral ? { visibleTo: it.user.id } : {}),
		});
		it.followupIds.push(m.id);
		return [200, messageObject(m, fake.baseUrl)];
	});
	// Follow-ups and the original response live under the application's id (discord-api-docs, Receiving and
	// Responding: "/webhooks/<application_id>/<interaction_token>"); another id is an unknown webhook.
	const webhookMessage = (app: string, token: string, mid: string) => {
		if (app !== fake.applicationId) return undefined;
		const it = fake.interactions.get(token);
		const id = mid === "@original" ? it?.originalMessageId : mid;
		return it && id ? fake.messages.get(id) : undefined;
	};
	route("GET", "/webhooks/:app/:token/messages/:mid", ({ params }) => {
		const m = webhookMessage(params[0]!, params[1]!, params[2]!);
		return m ? [200, messageObject(m, fake.baseUrl)] : err(404, 10008, "Unknown Message");
	});
	route("PATCH", "/webhooks/:app/:token/messages/:mid", ({ params, body, files, call }) => {
		const m = webhookMessage(params[0]!, params[1]!, params[2]!);
		if (!m) return err(404, 10008, "Unknown Message");
		call.problems = messageProblems(body, files.length, true, namesOf(files), existingOf(m));
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		return [200, messageObject(fake.editMessage(m, body as Record<string, unknown>, files), fake.baseUrl)];
	});
	route("DELETE", "/webhooks/:app/:token/messages/:mid", ({ params }) => {
		const m = webhookMessage(params[0]!, params[1]!, params[2]!);
		if (!m) return err(404, 10008, "Unknown Message");
		m.deleted = true;
		return [204];
	});
	route("POST", "/interactions/:id/:token/callback", (r) => onCallback(fake, r));
	return routes;
}

/** POST /interactions/:id/:token/callback: the first response of an interaction, once, within the deadline. */
function onCallback(fake: FakeDiscord, { params, body, files, query, call }: RouteRequest): RouteResult {
	const it = fake.interactions.get(params[1]!);
	if (!it || it.id !== params[0]) return err(404, 10062, "Unknown interaction");
	if (it.responseType !== undefined) {
		it.rejectedCallbacks++;
		return err(400, 40060, "Interaction has already been acknowledged.");
	}
	if (Date.now() - it.createdAt > fake.ackDeadlineMs) {
		it.rejectedCallbacks++;
		return err(404, 10062, "Unknown interaction");
	}
	const b = (body ?? {}) as { type?: number; data?: Record<string, unknown> };
	const data = b.data ?? {};
	const type = b.type;
	const channel = fake.channels.get(it.channelId)!;
	const ephemeral = typeof data.flags === "number" && (data.flags & 64) !== 0;
	const fromMessage = it.messageId !== undefined;
	// An autocomplete takes one answer, type 8 APPLICATION_COMMAND_AUTOCOMPLETE_RESULT, and only it; type 8 answers
	// nothing else (discord-api-docs, Receiving and Responding: interaction callback type).
	if ((it.kind === "autocomplete") !== (type === 8))
		return err(400, 50035, `Interaction callback type ${String(type)} not allowed for a ${it.kind} interaction`);
	if (type === 8) {
		call.problems = autocompleteProblems(data);
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		it.choices = (data.choices as NonNullable<typeof it.choices>).map((c) => ({ name: c.name, value: c.value }));
	} else if (type === 4 || type === 5) {
		if (type === 4) call.problems = messageProblems(data, files.length, false, namesOf(files));
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		const v2 = type === 4 && typeof data.flags === "number" ? data.flags & (1 << 15) : 0;
		const flags = (ephemeral ? 64 : 0) | (type === 5 ? 128 : 0) | v2;
		const m = fake.storeMessage(
			channel,
			fake.bot,
			type === 4 ? { ...data, flags } : { content: "", flags },
			type === 4 ? files : [],
			{
				webhookId: fake.applicationId,
				interactionId: it.id,
				...(ephemeral ? { visibleTo: it.user.id } : {}),
			},
		);
		it.originalMessageId = m.id;
	} else if (type === 6 || type === 7) {
		if (!fromMessage) return err(400, 50035, "Interaction callback type not allowed: no message to update");
		const m = fake.messages.get(it.messageId!)!;
		if (type === 7) {
			call.problems = messageProblems(data, files.length, true, namesOf(files), existingOf(m));
			if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
			fake.editMessage(m, data, files);
		}
		it.originalMessageId = m.id;
	} else if (type === 9) {
		if (it.kind === "modal") return err(400, 50035, "A modal cannot answer a modal submit");
		call.problems = modalProblems(data);
		if (call.problems.length > 0) return err(400, 50035, "Invalid Form Body", { problems: call.problems });
		it.modal = data as FakeInteraction["modal"];
	} else {
		return err(400, 50035, `Invalid interaction response type ${String(type)}`);
	}
	it.responseType = type;
	it.ackedAt = Date.now();
	if (query.with_response !== "true") return [204];
	const message = it.originalMessageId ? fake.messages.get(it.originalMessageId) : undefined;
	return [
		200,
		{
			interaction: {
				id: it.id,
				type: { command: 2, button: 3, select: 3, modal: 5, autocomplete: 4 }[it.kind],
				response_message_id: message?.id,
				response_message_loading: type === 5,
				response_message_ephemeral: ephemeral,
			},
			resource: { type, ...(message ? { message: messageObject(message, fake.baseUrl) } : {}) },
		},
	];
}
