/**
 * The files a learner uploaded in the Answer modal: the file upload's `values` name attachment ids, each
 * resolved in the submit's `data.resolved.attachments` (discord-api-docs, Component Reference: File Upload,
 * "File Upload Interaction Response Structure"). discord.js pairs the two; what it hands over is read as any
 * platform payload is (an id with no resolved attachment becomes a file that cannot be downloaded, so the
 * learner is told). Never throws.
 */

import type { ModalSubmitInteraction } from "discord.js";
import { encodeComponentId } from "../../render/index.ts";
import type { IncomingFile } from "../lesson/images.ts";

/** The uploaded files of a modal submit, for the upload of `toolCallId`'s form (none when it has no upload). */
export function uploadedFiles(interaction: ModalSubmitInteraction, toolCallId: string): IncomingFile[] {
	let field: unknown;
	try {
		field = interaction.fields.getField(encodeComponentId({ verb: "file", toolCallId }));
	} catch {
		return []; // no upload in this modal (a text-only form, or a review's)
	}
	const { values, attachments } = (field ?? {}) as { values?: unknown; attachments?: unknown };
	if (!Array.isArray(values)) return [];
	const resolved = attachments instanceof Map ? attachments : new Map();
	return values
		.filter((id): id is string => typeof id === "string")
		.map((id) => {
			const a = resolved.get(id) as
				| { url?: unknown; name?: unknown; contentType?: unknown; size?: unknown }
				| undefined;
			return {
				url: typeof a?.url === "string" ? a.url : undefined,
				name: typeof a?.name === "string" ? a.name : "the file",
				...(typeof a?.contentType === "string" ? { declaredType: a.contentType } : {}),
				...(typeof a?.size === "number" ? { declaredSize: a.size } : {}),
			};
		});
}
