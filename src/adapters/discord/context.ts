/**
 * What every handler needs, passed in once (no globals).
 */

import type { Client } from "discord.js";
import type { Logger } from "../../core/contracts/logger.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import type { PlanRenderer } from "../../render/index.ts";
import type { AnswerGate } from "../shared/answer-gate.ts";
import type { Poster } from "./poster.ts";
import type { DiscordState } from "./state.ts";

/** The adapter's shared dependencies. */
export interface AdapterContext {
	client: Client;
	tutor: Tutor;
	renderer: PlanRenderer;
	state: DiscordState;
	poster: Poster;
	/** What may be checked before an ack (memory only): lessons, questions, answered. */
	gate: AnswerGate;
	logger: Logger;
}
