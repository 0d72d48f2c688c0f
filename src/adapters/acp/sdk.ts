/**
 * The parts of the ACP SDK (and the zod it validates with) that sow's ACP transport uses, as one module. The build
 * bundles it on its own (dist/acp-sdk.cjs), required only when a worker runs over ACP, so no other command reads or
 * compiles a byte of it. Import the SDK through this module only; types may come from the SDK directly.
 */
export { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
