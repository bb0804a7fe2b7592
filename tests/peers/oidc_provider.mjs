// A real OAuth 2.1 / OpenID authorization server for the tests (npm oidc-provider, certified), on
// 127.0.0.1 only. Usage: node oidc_provider.mjs '<json config>'; the config (all optional but port):
//   {"port": 4000, "accessTokenTTL": 300, "scopes": ["mcp:tools", ...],
//    "clients": [{client_id, client_secret, redirect_uris, grant_types, ...}]}
// A client may carry "access_token_ttl" (seconds): its access tokens live that long instead.
// Access tokens are JWTs (RS256) for the resource indicator the client names (RFC 8707); any
// http(s) resource on 127.0.0.1/localhost is accepted. Dynamic client registration, client
// credentials, refresh tokens, introspection and revocation are on. Login and consent are the
// provider's own dev interaction forms: tests submit them with a scripted POST.
import { generateKeyPair, exportJWK } from "jose";
import Provider from "oidc-provider";

const config = JSON.parse(process.argv[2] ?? "{}");
const port = Number(config.port);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node oidc_provider.mjs '{\"port\": N, ...}'");
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;
const ttl = Number(config.accessTokenTTL ?? 300);
const resourceScopes = config.scopes ?? ["mcp:tools", "mcp:admin"];

const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: "test-rs256", alg: "RS256", use: "sig" };

function isLoopbackResource(indicator) {
  try {
    const url = new URL(indicator);
    return (url.protocol === "http:" || url.protocol === "https:")
      && (url.hostname === "127.0.0.1" || url.hostname === "localhost");
  } catch {
    return false;
  }
}

const provider = new Provider(issuer, {
  clients: config.clients ?? [],
  jwks: { keys: [signingKey] },
  scopes: ["openid", "offline_access", ...resourceScopes],
  // A test account: any login name signs in (the dev login form has no real password check).
  extraClientMetadata: { properties: ["access_token_ttl"] },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  features: {
    devInteractions: { enabled: true },
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator, client) => {
        if (!isLoopbackResource(indicator)) throw new Provider.errors.InvalidTarget();
        return {
          scope: resourceScopes.join(" "),
          audience: indicator,
          accessTokenTTL: Number(client?.metadata()?.access_token_ttl ?? ttl),
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        };
      },
    },
  },
  // Refresh tokens whenever the client may use them: MCP clients ask for resource scopes, and
  // OpenID's offline_access rule (only with prompt=consent) would make them rare.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
  ttl: {
    // A resource's tokens live as getResourceServerInfo says (the client's own TTL, or the default).
    AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL || ttl,
    ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL || ttl,
    RefreshToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
  pkce: { required: () => true },
  clientBasedCORS: () => true,
});
provider.on("server_error", (_ctx, err) => console.error("server_error", err));

provider.listen(port, "127.0.0.1", () => console.log(`oidc-provider listening on ${issuer}`));
