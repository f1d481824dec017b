// SPDX-License-Identifier: GPL-3.0-or-later
// headroom: the desktop app. Without arguments it opens on the teaching
// scenario; --screenshot renders a view to a PNG and exits (no display needed).
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "shell/screenshot.h"
#include "shell/session.h"
#include "style/theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTextStream>

#include <initializer_list>
#include <string_view>

namespace {

int fail(const QString& message)
{
    // One line on stderr and status 2, like headroom-cli.
    QTextStream(stderr) << "headroom: " << message << Qt::endl;
    return 2;
}

// A screenshot, --help and --version are batch use: they print their own
// output and nothing else, so Qt's platform notes (XDG_RUNTIME_DIR, offscreen
// plugin limits) are dropped; critical messages still pass.
void quietMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        QTextStream(stderr) << message << Qt::endl;
}

// True when an argument is one of names, alone or with "=value".
bool hasOption(int argc, char** argv, std::initializer_list<std::string_view> names)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        for (std::string_view name : names)
            if (arg == name || (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '='))
                return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    // A screenshot needs no display, nor do --help and --version, which print
    // and exit (a package check runs them on a server): choose the offscreen
    // platform before QApplication connects to one, unless the caller chose one.
    const bool screenshot = hasOption(argc, argv, {"--screenshot"});
    const bool printOnly = hasOption(argc, argv, {"--help", "-h", "-?", "--help-all", "--version", "-v"});
    if (screenshot || printOnly)
        qInstallMessageHandler(quietMessages);
    if ((screenshot || printOnly) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Headroom"));
    QApplication::setApplicationName(QStringLiteral("headroom"));
    QApplication::setApplicationDisplayName(QStringLiteral("Headroom"));
    QApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));
    // The installed desktop entry is <id>.desktop (packaging/CMakeLists.txt).
    QGuiApplication::setDesktopFileName(QStringLiteral(HEADROOM_APP_ID));
    QIcon icon;
    icon.addFile(QStringLiteral(":/icons/48x48/headroom.png"));
    icon.addFile(QStringLiteral(":/icons/256x256/headroom.png"));
    QApplication::setWindowIcon(icon);

    QCommandLineParser parser;
    parser.setApplicationDescription(QCoreApplication::translate("main", "GPU memory planner for transformer training"));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
                                              QCoreApplication::translate("main", "Render the window to a PNG file and exit."),
                                              QStringLiteral("file"));
    const QCommandLineOption scenarioOption(QStringLiteral("scenario"),
                                            QCoreApplication::translate("main", "Open a scenario file (.headroom.json)."),
                                            QStringLiteral("file"));
    const QCommandLineOption viewOption(
        QStringLiteral("view"),
        QCoreApplication::translate(
            "main", "View to show: breakdown, stages, timeline, ladder, sweep, validate, fit, compare or search."),
        QStringLiteral("name"), QStringLiteral("breakdown"));
    const QCommandLineOption langOption(QStringLiteral("lang"), QCoreApplication::translate("main", "Language: en or ko."),
                                        QStringLiteral("code"));
    const QCommandLineOption themeOption(QStringLiteral("theme"),
                                         QCoreApplication::translate("main", "Theme for this session: system, light or dark."),
                                         QStringLiteral("name"));
    const QCommandLineOption validationResultOption(
        QStringLiteral("validation-result"),
        QCoreApplication::translate("main", "With --screenshot: show a saved `headroom-cli validate --json` result in the Validate view."),
        QStringLiteral("file"));
    parser.addOptions({screenshotOption, scenarioOption, viewOption, langOption, themeOption, validationResultOption});
    parser.addPositionalArgument(QStringLiteral("scenario"),
                                 QCoreApplication::translate("main", "A scenario file to open (same as --scenario)."),
                                 QStringLiteral("[scenario]"));
    if (!parser.parse(QApplication::arguments()))
        return fail(parser.errorText());
    if (parser.isSet(helpOption))
        parser.showHelp(0);
    if (parser.isSet(versionOption))
        parser.showVersion();
    if (parser.positionalArguments().size() > 1)
        return fail(QCoreApplication::translate("main", "give at most one scenario file"));

    QString scenarioPath = parser.value(scenarioOption);
    if (scenarioPath.isEmpty() && !parser.positionalArguments().isEmpty())
        scenarioPath = parser.positionalArguments().constFirst();
    const QString view = parser.value(viewOption);
    const QString language = parser.value(langOption);
    if (parser.isSet(themeOption)) {
        const auto theme = Theme::fromName(parser.value(themeOption));
        if (!theme)
            return fail(QCoreApplication::translate("main", "unknown theme \"%1\": use system, light or dark").arg(parser.value(themeOption)));
        Theme::setOverride(*theme);  // this session only; the View menu's choice is what persists
    }

    if (parser.isSet(screenshotOption)) {
        ScreenshotRequest request;
        request.output = parser.value(screenshotOption);
        request.scenarioPath = scenarioPath;
        request.view = view;
        request.validationResult = parser.value(validationResultOption);
        if (!language.isEmpty())
            request.language = language;
        const QString error = Screenshot::take(request);
        return error.isEmpty() ? 0 : fail(error);
    }

    const auto shownView = MainWindow::viewFromName(view);
    if (!shownView)
        return fail(
            QCoreApplication::translate(
                "main",
                "unknown view \"%1\": use breakdown, stages, timeline, ladder, sweep, validate, fit, compare or search")
                .arg(view));
    if (!language.isEmpty() && !LanguageManager::languages().contains(language))
        return fail(QCoreApplication::translate("main", "unknown language \"%1\": use en or ko").arg(language));

    MainWindow window;
    if (!language.isEmpty())
        window.languages()->setLanguage(language);  // this session only; the View menu's choice is what persists
    window.show();
    // Unsaved changes left by a crash, else the file given, else the last session.
    Session session(&window);
    session.start(scenarioPath);
    if (parser.isSet(viewOption))
        window.showView(*shownView);
    const int status = QApplication::exec();
    session.finish();  // a clean exit: no autosave is offered next time
    return status;
}
