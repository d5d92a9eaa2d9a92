// Package converter turns one legacy Hermes/HOSA message (UIC 90918-1) into
// the OSDM calls it stands for, and the partner's OSDM answers into the
// legacy reply. It has no Caddy dependency: the OSDM calls go through the
// small Exchanger interface, which osdm_convert implements on Caddy's next
// handler and tests implement with a scripted partner.
package converter
