#!/bin/sh
# Builds build/bot.jar with the JDK alone (javac + jar; no Maven or Gradle).
# Run it from anywhere: sh build.sh
set -eu
cd "$(dirname "$0")"
rm -rf build
mkdir -p build/classes
find src -name '*.java' > build/sources.txt
javac --release 17 -encoding UTF-8 -Xlint:all -d build/classes @build/sources.txt
jar --create --file build/bot.jar --main-class pinochle.Main -C build/classes .
echo "built build/bot.jar: run it with  java -jar build/bot.jar"
