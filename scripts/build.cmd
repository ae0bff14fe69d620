@echo off
rem scripts\build.cmd: Windows wrapper of scripts/build (the logic is the Go program in devtool\).
cd /d "%~dp0.." || exit /b 1
go run ./devtool build %*
exit /b %ERRORLEVEL%
