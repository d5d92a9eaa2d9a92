// Package opstatus is what an operator is shown of a running
// configuration (the admin API's /osdm/ endpoints and `caddy
// osdm-status`): each partner's token and calls, the work settlement
// still has to do, a booking's record in either direction, and the
// stores. The handlers' domain packages fill it in; it imports no Caddy
// and holds no secret: a token is described, never included, and
// personal data is masked.
package opstatus
