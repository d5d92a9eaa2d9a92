#!/usr/bin/env bash
# The README's walk-through, end to end, against Caddyfile.example: prints
# each request and its reply, takes the OfferRef and BookingRef (and the
# OSDM offer, booking, fulfilment and refund offer ids) of each reply into
# the next request, and stops with an error at the first reply that is not
# the one expected. Legacy -> OSDM on the partner routes alpine and
# coastal; OSDM -> legacy as an OSDM client of partner hermes (a train,
# then a journey with a change; an access
# token from ./caddy osdm-token, then curl); and legacy -> OSDM -> legacy
# through /partners/hermes.
#
#   ./demo.sh        against a running ./xcaddy.sh run (started here, and
#                    stopped at the end, when nothing answers on port 8080)
#
# OSDM_DEMO_LEGACY, OSDM_DEMO_HERMES and OSDM_DEMO_LEGACY_SANDBOX override
# the addresses (default http://127.0.0.1:8080, :9443 and :8090). Dates are ten days from today; message ids carry
# this run's number, so the script can run again and again against one Caddy.
# The tickets (the partners' PDFs a legacy TicketRequest fetched, and that
# of hermes's fulfilment) are saved in demo-tickets/ (OSDM_DEMO_TICKETS),
# to open with any PDF viewer.
set -euo pipefail
cd "$(dirname "$0")"

legacy="${OSDM_DEMO_LEGACY:-http://127.0.0.1:8080}"
tickets="${OSDM_DEMO_TICKETS:-demo-tickets}"
mkdir -p "$tickets"
day="$(date -u -d '+10 days' +%F 2>/dev/null || date -u -v+10d +%F)"
run="$(date -u +%H%M%S)-$$"

if [ -t 1 ]; then
	bold=$'\033[1m' dim=$'\033[2m' red=$'\033[31m' off=$'\033[0m'
else
	bold='' dim='' red='' off=''
fi

# Start Caddy when nothing answers (./xcaddy.sh run builds ./caddy if
# needed and creates the demo keys first).
caddy_pid=''
caddy_log=''
if ! curl -s -o /dev/null --max-time 2 "$legacy/"; then
	caddy_log="$(mktemp)"
	echo "${dim}nothing answers at $legacy: starting ./xcaddy.sh run (log: $caddy_log)${off}"
	./xcaddy.sh run >"$caddy_log" 2>&1 &
	caddy_pid=$!
	trap 'kill "$caddy_pid" 2>/dev/null; wait "$caddy_pid" 2>/dev/null || true; rm -f "$caddy_log"' EXIT
	for _ in $(seq 1200); do
		curl -s -o /dev/null --max-time 1 "$legacy/" && break
		kill -0 "$caddy_pid" 2>/dev/null || { cat "$caddy_log" >&2; exit 1; }
		sleep 0.25
	done
fi

fail() {
	echo "${red}demo: $1${off}" >&2
	if [ -n "$caddy_log" ]; then
		echo "--- caddy log:" >&2
		tail -n 40 "$caddy_log" >&2
	fi
	exit 1
}

# send TITLE URL CONTENT_TYPE BODY STATUS PATTERN: POSTs BODY, prints the
# request and the reply, and fails unless the reply has STATUS and matches
# the extended regular expression PATTERN. The reply is left in $reply.
reply=''
send() {
	local title=$1 url=$2 ctype=$3 body=$4 want=$5 pattern=$6 out status
	printf '\n%s### %s%s\n%s> POST %s  (Content-Type: %s)%s\n%s\n' \
		"$bold" "$title" "$off" "$dim" "$url" "$ctype" "$off" "$body"
	out="$(curl -sS --max-time 30 -w '\n%{http_code}' "$url" -H "Content-Type: $ctype" --data-binary "$body")" ||
		fail "no answer from $url"
	status="${out##*$'\n'}"
	reply="${out%$'\n'*}"
	local shown="$reply"
	# A TicketReply carries whole documents: show its beginning only.
	[ "${#reply}" -le 4000 ] || shown="${reply:0:700}... (${#reply} bytes in all)"
	printf '%s< HTTP %s%s\n%s\n' "$dim" "$status" "$off" "$shown"
	[ "$status" = "$want" ] || fail "$title: HTTP $want expected, got $status"
	grep -Eq -- "$pattern" <<<"$(tr -d '\n' <<<"$reply")" || fail "$title: the reply should match /$pattern/"
}

# xml_field NAME: the text of the first <NAME> element of $reply.
xml_field() { sed -n "s:.*<$1>\([^<]*\)</$1>.*:\1:p" <<<"$reply" | head -n 1; }
# json_field NAME: the first string member NAME of $reply.
json_field() { grep -o "\"$1\": *\"[^\"]*\"" <<<"$reply" | head -n 1 | sed 's/.*: *"\(.*\)"/\1/'; }

journey() { # journey TRAIN [TO]
	echo "<Journey><TrainNumber>$1</TrainNumber><DepartureDate>$day</DepartureDate><DepartureTime>07:56</DepartureTime><From>8727100</From><To>${2:-8500010}</To></Journey>"
}
places='<PlaceRequest><TravelClass>2</TravelClass><ServiceCode>1</ServiceCode><Tariff code="1" count="2"/><Tariff code="2" count="1"/></PlaceRequest>'

echo "${bold}Legacy -> OSDM: a legacy client at $legacy, departures on $day${off}"

for partner in alpine coastal; do
	url="$legacy/partners/$partner"
	id="$run-$partner"

	send "$partner: availability (XML)" "$url" application/xml \
		"<AvailabilityRequest messageId=\"A-$id\">$(journey 9203)$places</AvailabilityRequest>" \
		200 '<AvailabilityReply .*<OfferRef>'
	offer="$(xml_field OfferRef)"

	booking="<BookingRequest messageId=\"B-$id\">$(journey 9203)$places<OfferRef>$offer</OfferRef><Passenger firstName=\"Anna\" lastName=\"Muller\" dateOfBirth=\"1990-05-17\"/></BookingRequest>"
	send "$partner: booking with OfferRef $offer (XML)" "$url" application/xml "$booking" \
		200 '<Status>FULFILLED</Status>'
	ref="$(xml_field BookingRef)"
	[ -n "$ref" ] || fail "$partner: the BookingReply names no BookingRef"

	send "$partner: the same booking resent: the same reply, nothing booked twice" "$url" application/xml "$booking" \
		200 "<BookingRef>$ref</BookingRef>"

	send "$partner: the ticket of $ref (XML): the partner's PDF, whole, in base64" "$url" application/xml \
		"<TicketRequest messageId=\"T-$id\"><BookingRef>$ref</BookingRef></TicketRequest>" \
		200 '<TicketReply .*<Status>FULFILLED</Status>.*<Document format="application/pdf" medium="PDF_A4" type="TICKET"'
	pdf="$tickets/$partner-$ref.pdf"
	sed -n 's:.*<Document [^>]*>\([^<]*\)</Document>.*:\1:p' <<<"$reply" | head -n 1 | base64 -d >"$pdf"
	[ "$(head -c 5 "$pdf")" = "%PDF-" ] || fail "$partner: the ticket saved as $pdf is not a PDF"
	echo "${dim}saved the partner's ticket: $pdf ($(wc -c <"$pdf") bytes)${off}"

	send "$partner: booking without OfferRef, first class (JSON): search, pick, book, fulfil" "$url" application/json \
		"{\"type\":\"BookingRequest\",\"messageId\":\"B2-$id\",\"journey\":{\"trainNumber\":\"9203\",\"departureDate\":\"$day\",\"departureTime\":\"07:56\",\"from\":\"8727100\",\"to\":\"8500010\"},\"placeRequest\":{\"travelClass\":1,\"serviceCode\":1,\"tariffs\":[{\"code\":1,\"count\":1}]},\"passengers\":[{\"firstName\":\"Jean\",\"lastName\":\"Dupont\"}]}" \
		200 '"status":"FULFILLED"'
	ref2="$(json_field bookingRef)"

	send "$partner: informationOnly booking, night train 4711, berths (JSON): offers only" "$url" application/json \
		"{\"type\":\"BookingRequest\",\"messageId\":\"I-$id\",\"informationOnly\":true,\"journey\":{\"trainNumber\":\"4711\",\"departureDate\":\"$day\",\"from\":\"8727100\",\"to\":\"8500010\"},\"placeRequest\":{\"travelClass\":2,\"serviceCode\":3,\"tariffs\":[{\"code\":1,\"count\":2}]}}" \
		200 '"type":"AvailabilityReply".*"serviceCode":3'

	send "$partner: cancel $ref with reason code 1 (XML): refunded, no fee" "$url" application/xml \
		"<CancelRequest messageId=\"C-$id\"><BookingRef>$ref</BookingRef><ReasonCode>1</ReasonCode></CancelRequest>" \
		200 '<Status>REFUNDED</Status>.*<Fee amount="0.00"'

	send "$partner: cancel $ref2 without a reason code (JSON): refunded, the partner keeps a fee" "$url" application/json \
		"{\"type\":\"CancelRequest\",\"messageId\":\"C2-$id\",\"bookingRef\":\"$ref2\"}" \
		200 '"status":"REFUNDED"'

	send "$partner: cancel $ref2 again: refused" "$url" application/json \
		"{\"type\":\"CancelRequest\",\"messageId\":\"C3-$id\",\"bookingRef\":\"$ref2\"}" \
		409 '"code":"ALREADY_CANCELLED"'
done

url="$legacy/partners/alpine"
# After-sales: an exchange to another train, synchronisation, passenger
# data, a partial cancellation and the rest cancelled.
send "alpine: book 3 places on train 9203, for the after-sales walk" "$url" application/xml \
	"<BookingRequest messageId=\"XB-$run\">$(journey 9203)$places</BookingRequest>" \
	200 '<Status>FULFILLED</Status>'
xref="$(xml_field BookingRef)"
send "alpine: exchange offers: booking $xref to train 9207, each offer with what the exchange costs" "$url" application/xml \
	"<AvailabilityRequest messageId=\"XA-$run\">$(journey 9207)$places<ExchangeOf>$xref</ExchangeOf></AvailabilityRequest>" \
	200 '<Offer>.*<Exchange>.*<Fee amount='
xoffer="$(xml_field OfferRef)"
send "alpine: exchange $xref to train 9207 (OfferRef $xoffer): the old places are freed once the new are confirmed" "$url" application/xml \
	"<BookingRequest messageId=\"XE-$run\">$(journey 9207)$places<OfferRef>$xoffer</OfferRef><ExchangeOf>$xref</ExchangeOf></BookingRequest>" \
	200 "<BookingRef>$xref</BookingRef>.*<Exchange>.*<ExchangeOf>$xref</ExchangeOf>"
place="$(grep -o '<Place [^>]*/>' <<<"$reply" | head -n 1)"
[ -n "$place" ] || fail "alpine: the exchange's BookingReply names no Place"
send "alpine: synchronisation: what became of message XE-$run" "$url" application/xml \
	"<SynchroRequest messageId=\"XS-$run\"><OriginalMessageId>XE-$run</OriginalMessageId></SynchroRequest>" \
	200 '<State>DONE</State>.*<Reply>.*<BookingReply'
send "alpine: passenger data (JSON): the first passenger's name and date of birth" "$url" application/json \
	"{\"type\":\"PassengerDataRequest\",\"messageId\":\"XP-$run\",\"bookingRef\":\"$xref\",\"passengers\":[{\"index\":1,\"firstName\":\"Anna\",\"lastName\":\"Muller\",\"dateOfBirth\":\"1990-05-17\"}]}" \
	200 '"type":"PassengerDataReply".*"firstName":"Anna"'
send "alpine: partial cancellation of one place ($place): refunded, the other places stay booked" "$url" application/xml \
	"<CancelRequest messageId=\"XC-$run\"><BookingRef>$xref</BookingRef>$place</CancelRequest>" \
	200 '<Status>PARTIALLY_REFUNDED</Status>.*<RefundAmount'
send "alpine: the same place again, as a new message: refused, named" "$url" application/xml \
	"<CancelRequest messageId=\"XC2-$run\"><BookingRef>$xref</BookingRef>$place</CancelRequest>" \
	400 '<Code>INVALID_MESSAGE</Code>.*not held'
send "alpine: cancel the rest: refunded, with the places cancelled" "$url" application/xml \
	"<CancelRequest messageId=\"XR-$run\"><BookingRef>$xref</BookingRef></CancelRequest>" \
	200 '<Status>REFUNDED</Status>.*<Place '

send "alpine: an unknown tariff code: refused, named" "$url" application/xml \
	"<AvailabilityRequest messageId=\"T-$run\">$(journey 9203)<PlaceRequest><TravelClass>2</TravelClass><ServiceCode>1</ServiceCode><Tariff code=\"9\" count=\"1\"/></PlaceRequest></AvailabilityRequest>" \
	400 '<Code>INVALID_MESSAGE</Code>.*tariff code 9'

send "coastal: train 462, sold by reservation system 80: a ReplacementProposal" "$legacy/partners/coastal" application/xml \
	"<AvailabilityRequest messageId=\"R-$run\">$(journey 462 8300046)<PlaceRequest><TravelClass>1</TravelClass><ServiceCode>1</ServiceCode><Tariff code=\"1\" count=\"1\"/></PlaceRequest></AvailabilityRequest>" \
	200 '<ReplacementProposal .*<ReservationSystem>80</ReservationSystem>.*<Operator>1080</Operator>.*<TrainNumber>462</TrainNumber>'

# The reverse direction, OSDM -> legacy: partner hermes on 127.0.0.1:9443 is
# an OSDM provider (osdm_login, osdm_access, osdm_legacy) in front of the
# legacy_sandbox on 127.0.0.1:8090.
hermes="${OSDM_DEMO_HERMES:-http://127.0.0.1:9443}"
sandbox="${OSDM_DEMO_LEGACY_SANDBOX:-http://127.0.0.1:8090}"
echo
echo "${bold}OSDM -> legacy: an OSDM client at $hermes/osdm, the legacy system at $sandbox${off}"

printf '\n%s### hermes: an access token (./caddy osdm-token signs an identity token and logs in)%s\n' "$bold" "$off"
echo "${dim}> ./caddy osdm-token --token-url $hermes/oauth/token --key-file demo-keys/hermes.pem --kid hermes-demo-1 --issuer https://reservations.example-railway.eu --subject example-railway${off}"
token="$(./caddy osdm-token --token-url "$hermes/oauth/token" --key-file demo-keys/hermes.pem --kid hermes-demo-1 \
	--issuer https://reservations.example-railway.eu --subject example-railway)" || fail "osdm-token: no access token"
echo "${dim}< an access token of ${#token} characters (not printed)${off}"

# osdm TITLE METHOD PATH BODY STATUS PATTERN: an OSDM call with the access
# token (and a new Idempotency-Key when it has a body), printed like send.
osdm() {
	local title=$1 method=$2 path=$3 body=$4 want=$5 pattern=$6 out status
	local args=(-sS --max-time 30 -X "$method" "$hermes/osdm$path" -H "Authenticate: Bearer $token" -H 'Accept: application/json' -w '\n%{http_code}')
	printf '\n%s### %s%s\n%s> %s %s/osdm%s  (Authenticate: Bearer ...)%s\n' "$bold" "$title" "$off" "$dim" "$method" "$hermes" "$path" "$off"
	if [ -n "$body" ]; then
		args+=(-H 'Content-Type: application/json' -H "Idempotency-Key: $(uuid)" --data-binary "$body")
		echo "$body"
	fi
	out="$(curl "${args[@]}")" || fail "no answer from $hermes/osdm$path"
	status="${out##*$'\n'}"
	reply="${out%$'\n'*}"
	# A document's content (tens of kB of base64) is printed shortened.
	printf '%s< HTTP %s%s\n%s\n' "$dim" "$status" "$off" \
		"$(sed -E 's/"content":"([A-Za-z0-9+/]{16})[A-Za-z0-9+/=]*"/"content":"\1…"/g' <<<"$reply")"
	[ "$status" = "$want" ] || fail "$title: HTTP $want expected, got $status"
	grep -Eq -- "$pattern" <<<"$reply" || fail "$title: the reply should match /$pattern/"
}
uuid() { cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen | tr 'A-Z' 'a-z'; }

osdm "hermes: offers for train 9203 (one AvailabilityRequest to the legacy system)" POST /offers \
	"{\"tripSearchCriteria\": {\"origin\": {\"objectType\": \"StopPlaceRef\", \"stopPlaceRef\": \"urn:uic:stn:8727100\"}, \"destination\": {\"objectType\": \"StopPlaceRef\", \"stopPlaceRef\": \"urn:uic:stn:8500010\"}, \"departureTime\": \"${day}T06:00:00+01:00\", \"parameters\": {\"dataFilter\": {\"vehicleFilter\": {\"exclude\": false, \"vehicleNumbers\": [\"9203\"]}}}}, \"offerSearchCriteria\": {\"travelClasses\": [\"SECOND\"]}, \"anonymousPassengerSpecifications\": [{\"externalRef\": \"p1\", \"type\": \"ADULT\", \"age\": 40}]}" \
	200 '"offerId":"'
offer="$(json_field offerId)"

osdm "hermes: a search without a train: refused, naming the restriction" POST /offers \
	"{\"tripSearchCriteria\": {\"origin\": {\"objectType\": \"StopPlaceRef\", \"stopPlaceRef\": \"urn:uic:stn:8727100\"}, \"destination\": {\"objectType\": \"StopPlaceRef\", \"stopPlaceRef\": \"urn:uic:stn:8500010\"}, \"departureTime\": \"${day}T06:00:00+01:00\"}, \"anonymousPassengerSpecifications\": [{\"externalRef\": \"p1\", \"type\": \"ADULT\", \"age\": 40}]}" \
	422 'restriction 2'

osdm "hermes: booking offer $offer (a BookingRequest; PREBOOKED, the places held)" POST /bookings \
	"{\"offers\": [{\"offerId\": \"$offer\", \"passengerRefs\": [\"p1\"]}], \"passengerSpecifications\": [{\"externalRef\": \"p1\", \"type\": \"ADULT\", \"age\": 40, \"detail\": {\"firstName\": \"Anna\", \"lastName\": \"Muller\"}}]}" \
	200 '"status":"PREBOOKED"'
booking="$(json_field id)"

osdm "hermes: fulfilment (no legacy message), with its ticket as a PDF" POST "/bookings/$booking/fulfillments" '{}' \
	200 '"status":"FULFILLED".*"medium":"PDF_A4","type":"TICKET","format":"application/pdf","content":"JVBERi0'
fulfilment="$(json_field id)"

# The ticket the traveller shows: saved from the fulfilment's document.
ticket="$tickets/ticket-$booking.pdf"
printf '\n%s### hermes: the ticket, saved as %s%s\n' "$bold" "$ticket" "$off"
sed -n 's/.*"fulfillmentDocuments":\[{[^]]*"content":"\([A-Za-z0-9+/=]*\)".*/\1/p' <<<"$reply" | base64 -d >"$ticket" ||
	fail "the fulfilment's document is not base64"
[ "$(head -c 5 "$ticket")" = "%PDF-" ] || fail "the fulfilment's document is not a PDF"
echo "${dim}< a PDF of $(wc -c <"$ticket") bytes: the train, the passengers and their places, the booking code, the control number and its Aztec code${off}"
if command -v pdftotext >/dev/null 2>&1; then
	pdftotext -layout "$ticket" - | sed '/^[[:space:]]*$/d'
	pdftotext "$ticket" - | grep -q 'Muller' || fail "the ticket does not name the passenger"
fi

osdm "hermes: the booking, read back from the store" GET "/bookings/$booking" '' \
	200 "\"id\":\"$booking\""

osdm "hermes: refund offer (quoted with refund_fee 10%, no legacy message)" POST "/bookings/$booking/refund-offers" \
	"{\"fulfillmentIds\": [\"$fulfilment\"]}" \
	200 '"status":"PROPOSED"'
refund="$(json_field id)"

osdm "hermes: refund confirmed (a CancelRequest to the legacy system)" PATCH "/bookings/$booking/refund-offers/$refund" \
	'{"status": "CONFIRMED"}' \
	200 '"status":"CONFIRMED"'

printf '\n%s### the legacy system holds booking %s booked once and cancelled%s\n%s> GET %s/_sandbox/bookings%s\n' "$bold" "$booking" "$off" "$dim" "$sandbox" "$off"
held="$(curl -sS --max-time 10 "$sandbox/_sandbox/bookings" | sed 's/},{"bookingRef"/}\n{"bookingRef"/g' | grep -F "\"$booking.book\"")" ||
	fail "the legacy sandbox holds no booking $booking"
echo "$held"
grep -q '"status":"CANCELLED"' <<<"$held" && grep -qF "\"$booking.cancel.1\"" <<<"$held" ||
	fail "the legacy sandbox does not hold booking $booking cancelled"

# A journey with a change at Strasbourg, given as a trip specification of
# two legs (the example has no timetable): one offer with a reservation
# part per train, booked all or nothing (one BookingRequest per train),
# one fulfilment per train, refunded as a whole (one CancelRequest each).
leg() { # leg TRAIN FROM DEPARTURE TO ARRIVAL
	echo "{\"timedLeg\": {\"start\": {\"stopPlaceRef\": {\"objectType\": \"StopPlaceRef\", \"stopPlaceRef\": \"urn:uic:stn:$2\"}, \"serviceDeparture\": {\"timetabledTime\": \"${day}T$3:00+01:00\"}}, \"end\": {\"stopPlaceRef\": {\"objectType\": \"StopPlaceRef\", \"stopPlaceRef\": \"urn:uic:stn:$4\"}, \"serviceArrival\": {\"timetabledTime\": \"${day}T$5:00+01:00\"}}, \"service\": {\"vehicleNumbers\": [\"$1\"], \"carriers\": [{\"ref\": \"urn:uic:rics:1187\"}]}}}"
}
osdm "hermes: offers for a journey with a change (9571 to Strasbourg, 96003 to Basel; one AvailabilityRequest per train)" POST /offers \
	"{\"tripSpecifications\": [{\"legs\": [$(leg 9571 8711300 07:00 8721202 08:50), $(leg 96003 8721202 09:10 8500010 10:30)]}], \"offerSearchCriteria\": {\"travelClasses\": [\"SECOND\"]}, \"anonymousPassengerSpecifications\": [{\"externalRef\": \"p1\", \"type\": \"ADULT\", \"age\": 40}]}" \
	200 '"coveredLegIds":\["trip-1-leg-2"\]'
joffer="$(json_field offerId)"

osdm "hermes: booking the journey (a BookingRequest per train, all or nothing)" POST /bookings \
	"{\"offers\": [{\"offerId\": \"$joffer\", \"passengerRefs\": [\"p1\"]}], \"passengerSpecifications\": [{\"externalRef\": \"p1\", \"type\": \"ADULT\", \"age\": 40, \"detail\": {\"firstName\": \"Anna\", \"lastName\": \"Muller\"}}]}" \
	200 '"vehicleNumber":"96003"'
jbooking="$(json_field id)"

osdm "hermes: fulfilment of the journey (one fulfilment per train, each with its ticket)" POST "/bookings/$jbooking/fulfillments" '{}' \
	200 '"summary":"Reservation on train 96003.*"fulfillmentDocuments":.*"type":"TICKET".*"type":"TICKET"'
jfulfilments="$(grep -o '"id":"fu-[^"]*","status"' <<<"$reply" | sed 's/"id":\("[^"]*"\),"status"/\1/' | paste -sd, -)"

osdm "hermes: refund offer of the journey (both trains)" POST "/bookings/$jbooking/refund-offers" \
	"{\"fulfillmentIds\": [$jfulfilments]}" \
	200 '"status":"PROPOSED"'
jrefund="$(json_field id)"

osdm "hermes: journey refunded (a CancelRequest per train)" PATCH "/bookings/$jbooking/refund-offers/$jrefund" \
	'{"status": "CONFIRMED"}' \
	200 '"status":"CONFIRMED"'

# Legacy to legacy over OSDM: /partners/hermes on the legacy side is
# osdm_convert -> osdm_token -> osdm_login/osdm_access -> osdm_legacy ->
# legacy_sandbox.
echo
echo "${bold}Legacy -> OSDM -> legacy: a legacy client at $legacy/partners/hermes${off}"
url="$legacy/partners/hermes"
id="$run-hermes"
send "hermes: availability (XML), over OSDM to the legacy system" "$url" application/xml \
	"<AvailabilityRequest messageId=\"A-$id\">$(journey 9203)$places</AvailabilityRequest>" \
	200 '<AvailabilityReply .*<OfferRef>'
offer="$(xml_field OfferRef)"
booking="<BookingRequest messageId=\"B-$id\">$(journey 9203)$places<OfferRef>$offer</OfferRef><Passenger firstName=\"Anna\" lastName=\"Muller\"/></BookingRequest>"
send "hermes: booking with OfferRef $offer (XML)" "$url" application/xml "$booking" \
	200 '<Status>FULFILLED</Status>'
ref="$(xml_field BookingRef)"
send "hermes: the same booking resent: the same reply" "$url" application/xml "$booking" \
	200 "<BookingRef>$ref</BookingRef>"
send "hermes: the ticket of $ref (XML): the PDF osdm_legacy renders from the legacy system's booking" "$url" application/xml \
	"<TicketRequest messageId=\"T-$id\"><BookingRef>$ref</BookingRef></TicketRequest>" \
	200 '<TicketReply .*<Document format="application/pdf" medium="PDF_A4" type="TICKET"'
pdf="$tickets/hermes-$ref.pdf"
sed -n 's:.*<Document [^>]*>\([^<]*\)</Document>.*:\1:p' <<<"$reply" | head -n 1 | base64 -d >"$pdf"
[ "$(head -c 5 "$pdf")" = "%PDF-" ] || fail "hermes: the ticket saved as $pdf is not a PDF"
echo "${dim}saved the ticket: $pdf ($(wc -c <"$pdf") bytes)${off}"
send "hermes: cancel $ref (XML): refunded at the legacy system" "$url" application/xml \
	"<CancelRequest messageId=\"C-$id\"><BookingRef>$ref</BookingRef></CancelRequest>" \
	200 '<Status>REFUNDED</Status>'

printf '\n%sdemo: every reply as expected; the partners'"'"' tickets are in %s%s\n' "$bold" "$tickets" "$off"
