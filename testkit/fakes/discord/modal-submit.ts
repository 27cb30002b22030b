/**
 * What a Discord client lets a user submit in a modal, checked before the fake sends the submit: files within
 * an upload's min/max and under the user's upload limit, a required upload not left empty, checkbox group
 * values among its options and within its bounds (sources: fixtures/discord/limits-modal.ts). Anything else
 * throws, as the client would not send it.
 */

import { UPLOAD_LIMIT_BYTES } from "../../fixtures/discord/interactions.ts";
import { checkboxRefusal, modalInputs, uploadRefusal } from "../../fixtures/discord/limits-modal.ts";
import { type FakeAttachment, snowflake } from "../../fixtures/discord/payloads.ts";

type File = { filename: string; contentType: string; data: Buffer };

/** The uploads of a submit as attachments (ids new, in `channelId`), by upload custom id; throws what a client would refuse. */
export function submittedUploads(
	modal: { components: unknown[] },
	channelId: string,
	files: Record<string, File[]>,
	chosen: Record<string, string[]>,
): Record<string, Array<FakeAttachment & { channelId: string }>> {
	const inputs = modalInputs(modal);
	const uploads: Record<string, Array<FakeAttachment & { channelId: string }>> = {};
	for (const [customId, list] of Object.entries(files)) {
		if (inputs.get(customId)?.type !== 19) throw new Error(`the modal has no file upload ${customId}`);
		uploads[customId] = list.map((f) => ({ id: snowflake(), ...f, channelId }));
	}
	for (const [customId, input] of inputs) {
		const refusal =
			input.type === 19
				? uploadRefusal(
						input,
						(files[customId] ?? []).map((f) => f.data.length),
						UPLOAD_LIMIT_BYTES,
					)
				: input.type === 22
					? checkboxRefusal(input, chosen[customId] ?? [])
					: undefined;
		if (refusal) throw new Error(`Discord would not submit ${customId}: ${refusal}`);
	}
	return uploads;
}
