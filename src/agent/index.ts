/**
 * The tutor engine's public surface: createTutor, the session store, the model
 * factory. Adapters depend on the Tutor interface in core/contracts/tutor.ts.
 */

export {
	DEFAULT_MATERIAL_LIMITS,
	type MaterialIndex,
	type MaterialLimits,
	readableMaterial,
	readDocument,
} from "../material/index.ts";
export {
	createTurnGate,
	TURN_GATE_MAX_LIMIT,
	type TurnGate,
	type TurnGateOptions,
	type TurnGateStats,
} from "./engine/turn-gate.ts";
export {
	createLanguageModel,
	createModelRegistry,
	MODEL_PROVIDERS,
	type ModelConfig,
	type ModelProvider,
	type ModelSpec,
	type ProviderAccess,
	type ProviderSettings,
	parseModelSpec,
} from "./models/index.ts";
export {
	createLearning,
	DEFAULT_RETENTION_DAYS,
	type DigestPerson,
	type DueReview,
	type LearnerProfile,
	type Learning,
	type LearningOptions,
	type LessonDigest,
	type LessonReviewPlan,
	MAX_RETENTION_DAYS,
	type ProfileLesson,
	type ReportRow,
	type ReviewItem,
} from "./profile/learning.ts";
export { learnerKeyOf } from "./profile/lesson-facts.ts";
export { createRephraser } from "./profile/rephrase.ts";
export {
	type AnswerGrader,
	createAnswerGrader,
	type ReviewJudgement,
	type ReviewQuestion,
} from "./profile/review-judge.ts";
export type { ReviewOutcome } from "./profile/schedule.ts";
export { isStoreError, reason, StoreError } from "./store/errors.ts";
export { declaredPrefixOf, type KeySpec, STATE_KEYS, type StateKeyPrefix, stateKeys } from "./store/keys.ts";
export {
	DEFAULT_STORE_URL,
	lastDriverError,
	makeFolder,
	openKeyv,
	StoreUrlError,
	sqlitePathOf,
} from "./store/keyv.ts";
export {
	createLibraryStore,
	LIBRARY_MAX_ITEMS,
	LIBRARY_NAME_MAX,
	type LibraryItem,
	type LibraryStore,
	libraryKeyOf,
} from "./store/library-store.ts";
export { createMaterialStore, type MaterialStore } from "./store/material-store.ts";
export {
	createPictureStore,
	DEFAULT_PICTURE_BUDGET,
	type PictureBudget,
	type PictureStore,
} from "./store/picture-store.ts";
export type { LowestItems, ScoredItem, ScoredItems } from "./store/scored-items.ts";
export { createSessionStore, sessionStoreOnKeyv } from "./store/session-store.ts";
export {
	createMemoryStateStore,
	openStateStore,
	openStateWithItems,
	type StateStore,
	stateStoreOnKeyv,
	stateWithItems,
} from "./store/state-store.ts";
export type { EndReason, LessonMessage, SessionRecord, SessionStore, UsageTotals } from "./store/types.ts";
export { createTutor, MAX_TOPIC_CHARS, type TutorOptions } from "./tutor.ts";
