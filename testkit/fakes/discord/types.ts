/**
 * Shapes the fake Discord records and takes: recorded REST calls and files,
 * interactions and how they were answered, scripted faults, options.
 */

import type { FakeUser } from "../../fixtures/discord/payloads.ts";

/** One file of a multipart request. */
export interface FakeFile {
	field: string;
	filename: string;
	contentType: string;
	data: Buffer;
}

/** A REST call as the fake received it. */
export interface RecordedCall {
	method: string;
	/** The route after `/api/v10`, e.g. `/channels/123/messages`. */
	path: string;
	query: Record<string, string>;
	body: unknown;
	files: FakeFile[];
	status: number;
	/** Limit violations found in the body (the call was answered 400 when any). */
	problems: string[];
	at: number;
}

/** An interaction the fake dispatched, and how the bot answered it. */
export interface FakeInteraction {
	id: string;
	token: string;
	kind: "command" | "button" | "select" | "modal" | "autocomplete";
	user: FakeUser;
	channelId: string;
	guildId: string;
	createdAt: number;
	/** The message a component sits on (buttons, selects, modals opened from a component). */
	messageId?: string;
	/** The first callback's type (4 reply, 5 deferred reply, 6 deferred update, 7 update, 8 autocomplete result, 9 modal). */
	responseType?: number;
	ackedAt?: number;
	originalMessageId?: string;
	modal?: { custom_id: string; title: string; components: unknown[] };
	/** An autocomplete's answer (type 8), as the bot sent it. */
	choices?: Array<{ name: string; value: string | number }>;
	followupIds: string[];
	/** Callbacks refused (a second ack, a late ack). */
	rejectedCallbacks: number;
}

/** A scripted REST failure: the next `times` calls matching answer `status`. */
export interface FakeFault {
	method?: string;
	path: RegExp;
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	times?: number;
	/** Only calls whose (parsed) body passes this. */
	when?: (body: unknown) => boolean;
}

/** Options of the fake. */
export interface FakeDiscordOptions {
	token?: string;
	/** HELLO's heartbeat interval; short values exercise heartbeat ACKs. */
	heartbeatIntervalMs?: number;
	/** Discord refuses a first interaction response after 3 s; so does the fake. */
	ackDeadlineMs?: number;
	/** The shard count `GET /gateway/bot` recommends (default 1). */
	shards?: number;
	/** `session_start_limit.max_concurrency` of `GET /gateway/bot`: shards that may identify at once (default 1). */
	maxConcurrency?: number;
}
