/**
 * The parts of the ACP SDK sow uses, bundled on their own (dist/acp-sdk.cjs) and required only over ACP: import the
 * SDK through this module only (types may come from the SDK directly).
 */
export { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
