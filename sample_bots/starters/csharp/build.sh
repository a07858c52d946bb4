#!/bin/sh
# Builds build/bot.exe with Mono's C# compiler (mcs); run it with: mono build/bot.exe
# Run it from anywhere: sh build.sh
set -eu
cd "$(dirname "$0")"
rm -rf build
mkdir -p build
mcs -optimize+ -warn:4 -out:build/bot.exe src/*.cs
echo "built build/bot.exe: run it with  mono build/bot.exe"
