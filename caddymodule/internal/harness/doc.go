// Package harness is the one harness of the glue's integration tests,
// for every package under caddymodule:
//
//   - ports: FreePort, ports below the ephemeral range, each handed out
//     once per process (internal/testrig's allocator, which
//     internal/redistest shares);
//   - a package's TestMain: Main, a data directory of the test
//     process's own;
//   - test Caddyfiles: Options (with LogOption, DebugOption) and Site,
//     and the routes several packages serve: LegacyRoute (osdm_legacy
//     under a prefix), SandboxRoute (the osdm_sandbox partner), and
//     ProvFixture's LoginRoute;
//   - Caddy in this process: Adapt, Load, LoadNamed, LoadJSON, TryLoad,
//     TryLoadJSON, Serve and ServeSite, around caddy.Load (a failed
//     adaptation or an adapter warning fails the test; Caddy stops when
//     the test ends); TryAdapt and TryProvision for a Caddyfile or a
//     module that must be refused;
//   - a directive's Caddyfile syntax: Unmarshal, TryUnmarshal, Block,
//     CheckUnmarshal, CheckRefusals, CheckAdaptRefused, CheckAdaptedJSON;
//   - Caddy in a child process (this test binary run again as its
//     TestChildProcess, which calls ChildProcess): StartCaddy,
//     TryStartCaddy, HoldBoltFile, CaddyCommand (the caddy command), and
//     Child's Kill (SIGKILL) and Stop (internal/testrig's runner, which
//     store's tests share);
//   - LegacyClient, the legacy reservation system's client: Post, Try,
//     Send;
//   - OSDMClient, a partner's OSDM client whose requests and answers
//     are checked against the bundled spec: Send, Do, and OSDMAnswer's
//     Decode and Problem;
//   - plain HTTP (Do, PostJSON, ServeLocal, BearerForm), a client from a
//     source address of its own (ClientFrom), a slow client (Dribble),
//     connections a reload drops (DroppedUnanswered), and the fixtures
//     several packages share: a partner's login service and upstream
//     (LoginPartner), a provider's keys and clients (ProvFixture), a
//     GTFS feed (LegacyGTFS), a
//     backend that records a header (RecordHeader), keys (ECKey,
//     WriteKey, WritePublicKey), a certificate authority (CA), files
//     (ReadFiles, JSONLines), metrics;
//   - names no other test uses (RandomHex); the shared Redis is
//     redistest.Shared's;
//   - ReturnsWithin, the bound on a call that must not hang
//     (internal/testrig's, which tokenauth's and store's tests share);
//   - AssertNoSecrets, the search of logs for tokens and private keys.
//
// Caddy's caddytest package does not fit: its Tester runs caddy's
// command line in the test process against a fixed admin port and
// loads configurations through the admin API, with no way to stop
// between tests, and the packages' tests run in parallel processes.
package harness
