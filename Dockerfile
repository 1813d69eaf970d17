# oedl and oesim in a small runtime image.
#
#   docker build -t oedl .
#   docker run --rm -it oedl demo                      # the simulator demo, no OpenEdge needed
#
# With a real, licensed OpenEdge: mount its DLC (read-only is enough) and the
# database and work directories, and point DLC at it. oedl only runs
# $DLC/bin/proutil, prostrct, procopy, proserve, proshut and _progres.
#
#   docker run --rm -it \
#     -v /usr/dlc:/usr/dlc:ro -e DLC=/usr/dlc \
#     -v /db:/db -v /dl:/dl \
#     oedl run --source /db/prod --target /db/new/prod --plan /dl/plan --work /dl/work
#
# OpenEdge itself is proprietary and is never copied into this image.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/oedl ./cmd/oedl \
 && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/oesim ./cmd/oesim

FROM debian:bookworm-slim
RUN useradd --create-home --uid 1000 dba
COPY --from=build /out/oedl /out/oesim /usr/local/bin/
USER dba
WORKDIR /home/dba
ENTRYPOINT ["oedl"]
CMD ["--help"]
