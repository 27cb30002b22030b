/**
 * The Slack adapter's public shapes: its configuration, its dependencies and its handle.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { StateStore } from "../../agent/index.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import type { PlanRenderer } from "../../render/index.ts";
import type { ImageLimits } from "../lesson/images.ts";
import type { BudgetRouter } from "../lesson/lesson-budget.ts";
import type { LessonRules } from "../lesson/lesson-rules.ts";
import type { LearnerServices } from "../lesson/profile-flows.ts";

/** Retries of Web API calls (network errors, HTTP 5xx); 429s are waited out separately. */
export interface SlackRetryConfig {
	retries: number;
	minTimeoutMs: number;
	maxTimeoutMs: number;
}

/** Per-workspace settings (the shared lesson rules), changed with `/lesson config`. */
export type WorkspaceConfig = LessonRules;

/** How the adapter reaches Slack. */
export interface SlackAdapterConfig {
	/** Bot token (`xoxb-…`). */
	botToken: string;
	/** Signing secret: Bolt checks every HTTP request's v0 signature with it. */
	signingSecret: string;
	/** App-level token (`xapp-…`, scope connections:write): when set, Socket Mode replaces HTTP. */
	appToken?: string;
	/** Web API base URL (default Slack's); tests and local runs point it at a fake. */
	apiUrl?: string;
	/** HTTP port for `/slack/events` (events, commands, interactivity); 0 picks a free one. */
	port: number;
	/** Interface to listen on (default all). */
	host?: string;
	/** Users allowed to run `/lesson config` and end any lesson, besides workspace admins and owners. */
	adminUserIds: string[];
	/** Web API retries (default 3 retries, 0.5 s to 5 s apart). */
	retry?: SlackRetryConfig;
	/** Per-request timeout of Web API calls in ms (default 15000). */
	requestTimeoutMs?: number;
	/** The model reads images: files shared in a lesson thread go to it (default false: the learner is told it cannot). */
	vision?: boolean;
	/** Caps on those pictures (default 5 MiB each, 4 per message, 15 s per download). */
	imageLimits?: Partial<ImageLimits>;
	/** Defaults of a workspace that has no stored config. */
	workspaceDefaults?: Partial<WorkspaceConfig>;
	/** Store URL of the lesson state when no state store is passed (default the SQLite file). */
	storeUrl?: string;
}

/** Dependencies of createSlackAdapter. */
export interface SlackAdapterOptions {
	tutor: Tutor;
	renderer: PlanRenderer;
	config: SlackAdapterConfig;
	logger: Logger;
	/** What the lesson controller remembers (posted cards, workspace rules, daily counts); opened on `storeUrl` when omitted. */
	state?: StateStore;
	/** The tutor\'s budget hook router (the one passed to createTutor): token caps apply when given. */
	budgets?: BudgetRouter;
	/** Learner profiles and review (`/lesson review|progress|report|forget-me|remind`); off when omitted. */
	learning?: LearnerServices;
	/** More GET routes on the HTTP receiver's port (health checks); ignored in Socket Mode. */
	httpRoutes?: SlackHttpRoute[];
}

/** A route served beside `/slack/events` (Bolt's custom routes). */
export interface SlackHttpRoute {
	path: string;
	method: string;
	handler(req: IncomingMessage, res: ServerResponse): void;
}

/** A running (or runnable) Slack adapter. */
export interface SlackAdapter {
	/** Verify the token (auth.test), then listen on HTTP or connect Socket Mode. Rejects with a clear error. */
	start(): Promise<void>;
	/** Stop receiving, wait (bounded) for queued posts, unsubscribe. Never rejects. */
	stop(): Promise<void>;
	/** Post today's review reminders now (the adapter also checks hourly); how many went out. Rejects when the store fails. */
	sendReminders(): Promise<number>;
	/** The HTTP port actually bound (undefined before start or in Socket Mode). */
	port(): number | undefined;
	/** Listening (HTTP) or connected (Socket Mode), and not stopping. */
	ready(): boolean;
}
