// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/teachingdialog.h"

#include "io/teachingset.h"
#include "models/teachingmodel.h"
#include "text/errortext.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace headroom;

TeachingDialog::TeachingDialog(QWidget* parent)
    : QDialog(parent)
    , m_model(new TeachingModel(this))
    , m_intro(new QLabel)
    , m_problem(new QLabel)
    , m_table(new QTableView)
    , m_load(new QPushButton)
    , m_close(new QPushButton)
{
    m_intro->setWordWrap(true);
    m_intro->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem->setWordWrap(true);
    m_problem->hide();
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_load);
    buttons->addWidget(m_close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addWidget(m_problem);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    // The engine plans every experiment (16 plans, milliseconds).
    auto set = builtinTeachingSet("seed-book");
    if (set) {
        auto rows = compareTeachingSet(*set);
        if (rows)
            m_model->setComparison(*set, *rows);
        else
            m_problem->setText(ErrorText::message(rows.error()));
    } else {
        m_problem->setText(ErrorText::message(set.error()));
    }
    m_problem->setVisible(!m_problem->text().isEmpty());

    m_load->setEnabled(false);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { m_load->setEnabled(m_model->scenarioAt(current.row()) != nullptr); });
    connect(m_load, &QPushButton::clicked, this, [this] {
        if (loadRow(m_table->currentIndex().row()))
            accept();
    });
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (loadRow(index.row()))
            accept();
    });
    connect(m_close, &QPushButton::clicked, this, &QDialog::reject);
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(TeachingModel::Why, 520);
    m_table->resizeRowsToContents();
    resize(1300, 700);
    retranslate();
}

bool TeachingDialog::loadRow(int row)
{
    const Scenario* scenario = m_model->scenarioAt(row);
    if (!scenario)
        return false;
    emit scenarioRequested(*scenario);
    return true;
}

void TeachingDialog::retranslate()
{
    setWindowTitle(tr("Seed book: polyglot-ko-1.3b experiment"));
    m_intro->setText(
        tr("The book behind Headroom's study notes (허정준, chapter 5) trains EleutherAI/polyglot-ko-1.3b in fp16 "
           "with plain AdamW on a Colab T4, 256-token random sequences, and prints torch.cuda.memory_allocated() "
           "in GiB right after the first optimizer step. Each row plans the same experiment and reads the same "
           "counter. Headroom has no pure-fp16 mode with fp16 optimizer states; the scenarios use bf16, which "
           "has the same bytes. Sources: docs/validation/seed-book.md."));
    m_load->setText(tr("&Load Scenario"));
    m_load->setToolTip(tr("Open the selected experiment's scenario in the main window"));
    m_close->setText(tr("&Close"));
    m_model->refresh();
}

void TeachingDialog::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QDialog::changeEvent(event);
}
