// The ACP SDK parts sow uses, bundled apart (dist/acp-sdk.cjs) and loaded only over ACP: import the SDK only through
// here (types may come from it directly).
export { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
