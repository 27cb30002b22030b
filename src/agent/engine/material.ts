/**
 * A lesson's material in the engine: read at start (src/material: bounded extraction, the index),
 * stored in the material store, told to the model in the start note (name, pages, outline, what was
 * neutralised), loaded once per turn for the tools, and the agents' variant that can search it.
 */

import type { Logger } from "../../core/contracts/logger.ts";
import type { MaterialUpload } from "../../core/contracts/tutor.ts";
import { type MaterialIndex, type MaterialLimits, type OpenIndex, readDocument } from "../../material/index.ts";
import { MATERIAL_PROMPT } from "../prompts/index.ts";
import { type MaterialStore, parseMaterialIndex } from "../store/material-store.ts";
import type { SessionRecord } from "../store/types.ts";
import { createSearchMaterialTool } from "../tools/search-material.ts";
import type { LessonAgent } from "./agents.ts";

/** A read document, or why it was refused (a sentence for the learner). */
export type MaterialRead = { ok: true; index: MaterialIndex } | { ok: false; message: string };

/** Read and index an upload (a PDF, a text or Markdown file), or take a library's index as it is (checked); never rejects. */
export async function readMaterial(upload: MaterialUpload, limits?: Partial<MaterialLimits>): Promise<MaterialRead> {
	if ("index" in upload) {
		// Read and indexed when it was added to the community's library: only its shape is checked here.
		const index = parseMaterialIndex(upload.index);
		return index
			? { ok: true, index }
			: { ok: false, message: "The library's copy of the document could not be read." };
	}
	const read = await readDocument(upload.data, { name: upload.name, ...(limits ? { limits } : {}) });
	return read.ok ? read : { ok: false, message: read.message };
}

/** Most outline lines in the start note (the rest is found by search). */
const OUTLINE_LINES = 40;

/** The start note's paragraph about the material: what it is, its outline, what was neutralised. */
export function materialNote(index: MaterialIndex): string {
	const parts = index.unit === "part";
	const outline = index.outline
		.slice(0, OUTLINE_LINES)
		.map((h) => `${h.level === 1 ? "-" : "  -"} ${JSON.stringify(h.title)} (p. ${h.page})`);
	const more =
		index.outline.length > OUTLINE_LINES ? [`  (${index.outline.length - OUTLINE_LINES} more headings)`] : [];
	const warned = index.warnings.map((w) => `Note: ${w.message}`);
	return [
		`Material: the learner attached ${JSON.stringify(index.name)} (${index.pageCount} pages). Teach from it: search it with search_material, follow its order and its headings' words, and cite pages with explain's \`source\`.`,
		...(parts
			? [
					'It is a text file: its "pages" are parts of about 3,000 characters; search results and `source.page` number them as pages.',
				]
			: []),
		...(outline.length > 0
			? ["Its headings (quoted from the document):", ...outline, ...more]
			: ["It has no headings."]),
		...warned,
	].join("\n");
}

/** What the record keeps about its material. */
export function materialMeta(index: MaterialIndex): NonNullable<SessionRecord["material"]> {
	return { name: index.name, pages: index.pageCount };
}

/** The lesson's index for this turn; undefined when it has none or the store cannot give it (the tools then say so). */
export async function materialFor(
	store: MaterialStore,
	record: SessionRecord,
	logger: Logger,
): Promise<OpenIndex | undefined> {
	if (!record.material) return undefined;
	try {
		return await store.get(record.sessionId);
	} catch (error) {
		logger.warn({ err: error, sessionId: record.sessionId }, "the lesson's material could not be read");
		return undefined;
	}
}

const variants = new WeakMap<LessonAgent, LessonAgent>();

/** `agent` for a lesson with material: its prompt ends with the material paragraph, and it may search (one object per agent: byte-stable requests). */
export function withMaterial(agent: LessonAgent): LessonAgent {
	let out = variants.get(agent);
	if (!out) {
		const search = createSearchMaterialTool();
		const tools = new Map(agent.tools);
		tools.set(search.name, search);
		out = {
			...agent,
			system: `${agent.system}\n\n${MATERIAL_PROMPT}`,
			tools,
			toolSet: { ...agent.toolSet, [search.name]: search.tool },
		};
		variants.set(agent, out);
	}
	return out;
}
