/**
 * The Slack adapter: Bolt 5 over HTTP (`/slack/events` for events, commands and
 * interactivity, signature-checked) or Socket Mode when an app token is set. Transport
 * only: clicks, commands and thread messages become LearnerEvents; TutorEvents become
 * posts in the lesson's thread (see poster.ts).
 */

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, LogLevel, SocketModeReceiver } from "@slack/bolt";
import { createLessonController } from "../lesson/controller.ts";
import { originOf } from "../lesson/images.ts";
import { within } from "../lesson/within.ts";
import { createAdminCheck } from "./admins.ts";
import { registerAgentPane } from "./agent-pane.ts";
import { toBoltLogger } from "./bolt-logger.ts";
import { clientOptionsFor } from "./config.ts";
import type { HandlerContext } from "./context.ts";
import { registerControls } from "./controls.ts";
import { DELIVERY_BUSY, registerDeliveryGuard } from "./deliveries.ts";
import { registerEvents, SLACK_FILE_ORIGIN } from "./events.ts";
import { registerHome } from "./home.ts";
import { registerCommands } from "./lesson-command.ts";
import { createSlackClicks, createSlackPort } from "./port.ts";
import type { SlackAdapter, SlackAdapterOptions } from "./types.ts";
import { registerUnhandledAck } from "./unhandled.ts";

export { LESSON_COMMAND } from "./messages.ts";
export { decodeSlackThreadId, encodeSlackThreadId, type SlackThread } from "./thread-id.ts";
export type { SlackAdapter, SlackAdapterConfig, SlackAdapterOptions, SlackHttpRoute } from "./types.ts";

/** How long start() waits for a Socket Mode connection. */
const CONNECT_MS = 30_000;

/** Create the Slack adapter; nothing connects until start(). */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
	const { tutor, renderer, config } = options;
	const logger = options.logger.child({ adapter: "slack" });
	const boltLogger = toBoltLogger(logger);
	const socketMode = Boolean(config.appToken);
	const receiver = socketMode
		? new SocketModeReceiver({
				appToken: config.appToken!,
				logger: boltLogger,
				logLevel: LogLevel.INFO,
				installerOptions: { clientOptions: clientOptionsFor(config, boltLogger) },
			})
		: new HTTPReceiver({
				signingSecret: config.signingSecret,
				endpoints: "/slack/events",
				...(options.httpRoutes?.length ? { customRoutes: options.httpRoutes } : {}),
				logger: boltLogger,
				logLevel: LogLevel.INFO,
				// Record first: Slack is answered when the listeners return, and they return once what the request
				// carries is recorded (bounded; the work goes on after): deliveries.ts.
				processBeforeResponse: true,
			});
	const app = new App({
		token: config.botToken,
		receiver,
		logger: boltLogger,
		logLevel: LogLevel.INFO,
		clientOptions: clientOptionsFor(config, boltLogger),
		// auth.test runs in start(), where a bad token becomes a clear error instead of an unhandled rejection.
		deferInitialization: true,
	});
	const clicks = createSlackClicks(); // clicked cards are updated through their response_url
	const port = createSlackPort(app.client, logger, clicks);
	const controller = createLessonController({
		tutor,
		renderer,
		port,
		logger,
		...(options.state ? { state: options.state } : {}),
		...(options.budgets ? { budgets: options.budgets } : {}),
		...(options.learning ?? {}),
		...(config.storeUrl ? { storeUrl: config.storeUrl } : {}),
		...(config.workspaceDefaults ? { ruleDefaults: config.workspaceDefaults } : {}),
		images: {
			vision: config.vision === true,
			// url_private needs the bot token (files:read); only Slack's file host (or SLACK_API_URL's, for tests) gets it.
			source: {
				origins: [SLACK_FILE_ORIGIN, ...[originOf(config.apiUrl)].filter((o) => o !== undefined)],
				headers: { authorization: `Bearer ${config.botToken}` },
				...(config.imageLimits ? { limits: config.imageLimits } : {}),
			},
		},
	});
	const ctx: HandlerContext = {
		client: app.client,
		controller,
		port,
		logger,
		admins: createAdminCheck(app.client, config.adminUserIds, logger),
	};
	registerUnhandledAck(app); // first: what no listener takes is answered at once, not with a 404 after 3 s
	registerDeliveryGuard(app, ctx); // a retry or replay reaches no listener's work
	registerCommands(app, ctx);
	registerControls(app, ctx, clicks);
	registerEvents(app, ctx);
	registerHome(app, ctx);
	registerAgentPane(app, ctx);
	app.error(async (error) => {
		// Another process is handling this delivery: no answer but a 500, so Slack delivers it again later.
		if ((error as { code?: unknown }).code === DELIVERY_BUSY) throw error;
		logger.error({ err: error, code: (error as { code?: unknown }).code }, "slack: unhandled error in a listener");
	});

	let server: Server | undefined;
	let started = false;

	return {
		async start() {
			if (started) return;
			try {
				await app.init();
			} catch (error) {
				throw new Error(
					`Slack rejected the bot token (auth.test): ${(error as Error).message}. Check SLACK_BOT_TOKEN${config.apiUrl ? ` and SLACK_API_URL (${config.apiUrl})` : ""}.`,
					{ cause: error },
				);
			}
			controller.attach();
			try {
				if (socketMode) {
					// The Socket Mode client retries a failing connection forever: bound the wait here.
					let failure: unknown;
					const connected = await within(
						app.start().then(
							() => true,
							(error: unknown) => {
								failure = error;
								return false;
							},
						),
						CONNECT_MS,
					);
					if (failure) throw failure;
					if (!connected) {
						await within(app.stop(), 5000);
						throw new Error(`no connection within ${CONNECT_MS / 1000} s`);
					}
				} else
					server = (await app.start({ port: config.port, ...(config.host ? { host: config.host } : {}) })) as Server;
			} catch (error) {
				await controller.stop();
				throw new Error(
					socketMode
						? `Slack Socket Mode did not connect: ${(error as Error).message}. Check SLACK_APP_TOKEN (an xapp- token with connections:write).`
						: `Could not listen on port ${config.port}: ${(error as Error).message}.`,
					{ cause: error },
				);
			}
			started = true;
			logger.info({ mode: socketMode ? "socket" : "http", port: this.port() }, "slack: adapter started");
		},
		async stop() {
			if (!started) return;
			started = false;
			try {
				await app.stop();
			} catch (error) {
				logger.warn({ err: error }, "slack: stopping the receiver failed");
			}
			server = undefined;
			// Turns already running still emit cards (a quiz nobody sees would strand its learner): bounded.
			await controller.stop();
		},
		ready: () => started,
		port() {
			const address = server?.address();
			return address && typeof address === "object" ? (address as AddressInfo).port : undefined;
		},
		sendReminders: async () => (await controller.profile?.sendReminders()) ?? 0,
	};
}
